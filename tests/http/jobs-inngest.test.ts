// Inngest mode over real HTTP: queued jobs are sent as Inngest events. When the Inngest event
// API fails, /track still answers (the job is durable, QUEUED) and the re-dispatch loop sends
// the job once Inngest is reachable again. A local stand-in for the Inngest event API records
// what the app sends.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startApp, type RunningApp } from "../support/app";
import { createKey, request, signUp, uniqueEmail } from "../support/http";

interface Received {
  name: string;
  data: { jobId: string };
}

let app: RunningApp;
let server: http.Server;
let failing = true;
const received: Received[] = [];
let attempts = 0;

beforeAll(async () => {
  const port = await freePort();
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.method === "POST" && req.url?.startsWith("/e/")) {
        attempts++;
        if (failing) {
          res.writeHead(503, { "content-type": "application/json" }).end('{"error":"down"}');
          return;
        }
        const events = [JSON.parse(body)].flat() as Received[];
        received.push(...events);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ids: events.map((_, i) => `evt-${received.length + i}`), status: 200 }));
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  const base = `http://127.0.0.1:${port}`;
  app = await startApp({ INNGEST_EVENT_KEY: "test-event-key", INNGEST_SIGNING_KEY: "signkey-test-0123456789abcdef", INNGEST_BASE_URL: base, INNGEST_EVENT_API_BASE_URL: base, JOB_POLL_MS: "50" });
});

afterAll(async () => {
  await app?.stop();
  await new Promise((r) => server?.close(r));
});

describe("Inngest dispatch", () => {
  it("a failed send leaves the job QUEUED; the re-dispatch loop sends it when Inngest is back", async () => {
    const owner = await signUp({ url: app.url });
    const { secret } = await createKey(owner);
    const r = await request(app.url, "POST", "/track", { eventName: "signup", metadata: { referredUserEmail: uniqueEmail() } }, { "x-api-key": secret });
    expect(r.status).toBe(202);
    const jobId = r.body.jobId as string;
    const deadline = Date.now() + 20_000;
    while (attempts === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    expect(attempts).toBeGreaterThan(0);
    const queued = await request(app.url, "GET", `/sdk/jobs/${jobId}`, undefined, { "x-api-key": secret });
    expect(queued.body.status).toBe("QUEUED");
    expect(received).toHaveLength(0);

    failing = false;
    while (!received.some((e) => e.data.jobId === jobId) && Date.now() < deadline + 20_000) await new Promise((res) => setTimeout(res, 100));
    const sent = received.find((e) => e.data.jobId === jobId);
    expect(sent?.name).toBe("rts/job.event-process");
    const apply = await request(app.url, "POST", "/sdk/referrals/apply", { referralCode: "ANYCODE2", referredUserEmail: uniqueEmail() }, { "x-api-key": secret });
    expect(apply.status).toBe(202);
    const until = Date.now() + 20_000;
    while (!received.some((e) => e.data.jobId === apply.body.jobId) && Date.now() < until) await new Promise((res) => setTimeout(res, 100));
    expect(received.find((e) => e.data.jobId === apply.body.jobId)?.name).toBe("rts/job.sdk-referral-apply");
  });

  it("serves the functions at /api/inngest", async () => {
    const r = await fetch(`${app.url}/api/inngest`);
    expect(r.status).toBeLessThan(500);
  });
});
