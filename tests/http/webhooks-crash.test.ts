// The webhook outbox across a crash, over real HTTP against `next start`: an event committed
// while no runner delivers (EMBEDDED_RUNNER=0) stays in the outbox through a SIGKILL; after the
// restart it reaches the receiver exactly once, signed (standardwebhooks verifies it).
import { afterAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { startApp, type RunningApp } from "../support/app";
import { ownDatabase, withDatabase } from "../support/database";
import { startReceiver } from "../support/webhook-receiver";
import { participant, rewardsBusiness, trackReferral } from "./rewards-helpers";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

/** The outbox as the database holds it while the app is down. */
const outbox = (dbEnv: Record<string, string>) =>
  withDatabase(dbEnv, async (sql) => (await sql(`SELECT (SELECT count(*) FROM "WebhookMessage")::int AS messages,
      (SELECT count(*) FROM "Job" WHERE type = 'WEBHOOK_DELIVER' AND status = 'QUEUED')::int AS queued`))[0]);

describe("webhook outbox across a crash", () => {
  it("an event committed before a SIGKILL is delivered once after the restart", async () => {
    const own = await ownDatabase();
    cleanups.push(own.drop);
    const dbEnv = own.env;
    const rx = await startReceiver();
    cleanups.push(() => rx.close());

    // First life: nothing delivers (runner off), so the message waits in the outbox.
    let app: RunningApp = await startApp({ ...dbEnv, EMBEDDED_RUNNER: "0" });
    cleanups.push(() => app.stop());
    const { owner, secret } = await rewardsBusiness({ url: app.url });
    const hook = await owner.call("POST", "/business/webhooks", { url: `${rx.url}/crash`, environment: "TEST", events: ["referral.created"] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    const alice = await participant(secret, {}, app.url);
    const t = await trackReferral(secret, alice.referralCode, { url: app.url });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    await app.kill();
    expect(rx.received).toHaveLength(0);
    expect(await outbox(dbEnv)).toEqual({ messages: 1, queued: 1 });

    // Second life: the runner finds the queued delivery job.
    app = await startApp({ ...dbEnv, JOB_POLL_MS: "100" });
    cleanups.push(() => app.stop());
    const [got] = await rx.waitFor(1);
    const event = new Webhook(hook.body.secret).verify(got.body, got.headers) as { type: string; data: { referralId: string } };
    expect(event).toMatchObject({ type: "referral.created", data: { referralId: t.body.referralId } });
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.received).toHaveLength(1);
    await app.stop();
    expect(await outbox(dbEnv)).toEqual({ messages: 1, queued: 0 });
  }, 180_000);
});
