// A lost answer: a proxy forwards /track, /track/batch and /sdk/referrals/apply to the app and
// drops the response (the socket is destroyed after the app answered); the client retries with
// the same idempotency key until an answer reaches it. The answer it finally gets must be the
// first one (a replay: same event, job, referral), and the database must hold each event,
// referral and reward once.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { http, sleep, type Answer, type Shop, referredEvent } from "./kit";

/** Headers the proxy does not pass on: its own connection's, and encodings (fetch decodes the body it reads). */
const HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "accept-encoding", "content-encoding", "keep-alive"]);

/** A proxy to `target` that drops the response of the first attempt of each request, and of `dropShare` of the later ones. */
async function droppingProxy(target: string, dropShare: number) {
  const seen = new Set<string>();
  const stats = { forwarded: 0, dropped: 0 };
  const read = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => resolve(Buffer.concat(chunks)));
    });
  const server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !HOP.has(k)) headers[k] = v;
      let answer: Response;
      try {
        answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length ? body.toString("utf8") : undefined });
      } catch {
        return void res.destroy();
      }
      const text = await answer.text();
      stats.forwarded++;
      const id = `${req.url} ${body.toString("utf8")}`;
      const first = !seen.has(id);
      seen.add(id);
      // The app committed and answered; the answer never reaches the client.
      if (first || Math.random() < dropShare) {
        stats.dropped++;
        return void req.socket.destroy();
      }
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => {
        if (!HOP.has(k)) out[k] = v;
      });
      res.writeHead(answer.status, out).end(text);
    })();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stats, close };
}

/** Sends until an answer arrives (status 0: the answer was lost; 503: retry later). */
async function untilAnswered(send: () => Promise<Answer>) {
  for (let attempt = 1; ; attempt++) {
    const a = await send();
    if ((a.status !== 0 && a.status !== 503) || attempt >= 20) return { ...a, attempts: attempt };
    await sleep(50);
  }
}

/** What a replay must repeat: the ids an answer names. */
const ids = (a: Answer) => JSON.stringify([a.body?.eventId, a.body?.jobId, a.body?.referralId, a.body?.results?.map((r) => [r.eventId, r.jobId])]);

/**
 * `requests` calls through the proxy, `concurrency` at a time: /track (a new referred user per
 * key), /track/batch (10 such events) and /sdk/referrals/apply (synchronous with a referredUserId,
 * queued without), each retried with its key until answered. Returns the keys acknowledged and
 * the jobs to wait for.
 */
export async function lostAnswers(s: Shop, requests: number, concurrency = 4, dropShare = 0.3) {
  const proxy = await droppingProxy(s.url, dropShare);
  const p = (m: string, path: string, body: unknown, h: Record<string, string> = {}) => http(proxy.url, m, path, body, { "x-api-key": s.secret, ...h });
  const acknowledged: string[] = [];
  const jobs: string[] = [];
  const unanswered: string[] = [];
  let replayMismatch = 0;
  let next = 0;
  const tag = `lost-${Date.now()}`;
  const one = async (n: number) => {
    const key = `${tag}-${n}`;
    const kind = n % 5 === 3 ? "batch" : n % 5 === 4 ? "apply" : "track";
    let keys = [key];
    let call: [string, unknown, Record<string, string>];
    if (kind === "track") call = ["/track", referredEvent(s, key, n), {}];
    else if (kind === "batch") {
      keys = Array.from({ length: 10 }, (_, i) => `${key}-${i}`);
      call = ["/track/batch", { events: keys.map((k, i) => referredEvent(s, k, n + i)) }, {}];
    } else {
      const who = n % 10 === 4 ? { referredUserId: `${key}-user` } : { referredUserEmail: `${key}@example.com` };
      call = ["/sdk/referrals/apply", { referralCode: s.codes[n % s.codes.length], ...who }, { "idempotency-key": key }];
    }
    const a = await untilAnswered(() => p("POST", ...call));
    if (a.status >= 300 || (kind === "batch" && !a.body?.results?.every((r) => r.success))) return void unanswered.push(`${key}: ${a.status} ${JSON.stringify(a.body)}`);
    // One more retry after the answer arrived, straight to the app: the same answer again.
    const again = await s.sdk("POST", ...call);
    if (again.status !== a.status || ids(again) !== ids(a)) {
      replayMismatch++;
      if (process.env.FAULTS_DEBUG) console.log("replay differs", JSON.stringify(a), JSON.stringify(again));
    }
    if (kind !== "apply") acknowledged.push(...keys);
    for (const j of [a.body?.jobId, ...(a.body?.results ?? []).map((r) => r.jobId)]) if (typeof j === "string") jobs.push(j);
  };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) await one(next++);
    }),
  );
  await proxy.close();
  return { acknowledged, jobs, unanswered, replayMismatch, proxy: proxy.stats, applies: Math.floor(requests / 5) };
}

/** Waits (bounded) until every job is finished, through GET /sdk/jobs/:jobId. */
export async function waitForJobs(s: Shop, jobs: string[], timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (const id of jobs) {
    for (;;) {
      const r = await s.sdk("GET", `/sdk/jobs/${id}`);
      if (r.body?.status === "SUCCEEDED" || r.body?.status === "FAILED") break;
      if (Date.now() > deadline) return false;
      await sleep(200);
    }
  }
  return true;
}
