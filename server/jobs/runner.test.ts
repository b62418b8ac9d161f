// The embedded runner keeps the event path free: webhook deliveries and payout runs run in their
// own bounded pools, so an endpoint that hangs (here: one that never answers until the test lets
// it) holds up no other business's events, even with every place of the webhook pool taken; and
// a payout run waiting for a chain that does not answer holds up no event, not even those of its
// own business (its chain calls come before the pool lock).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { emitWebhookEvent } from "../domain/webhooks/emit";
import { createWebhook } from "../domain/webhooks/service";
import { startReceiver, type Receiver } from "../../tests/support/webhook-receiver";
import { queuedEvent, queuedJob, testBusiness } from "../../tests/support/jobs-fixtures";
import { claimDueJobs } from "./claim";
import { pollPause, startEmbeddedRunner } from "./runner";

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx.close());

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** pool.low messages of the business, one per `n`, written as a change writes its outbox. */
const messages = (businessId: string, ns: number[]) =>
  db.$transaction((tx) => emitWebhookEvent(tx, ns.map((n) => ({ businessId, environment: "TEST" as const, type: "pool.low" as const, data: { n } }))));

/** Waits until the business has messages and every one is delivered. */
const delivered = (what: string, businessId: string) =>
  until(what, () => db.webhookMessage.findMany({ where: { businessId } }), (ms) => ms.length > 0 && ms.every((m) => m.status === "DELIVERED"));

/** Runs `body` with an embedded runner; then the hanging endpoints answer and the runner stops. */
async function running(body: (runner: ReturnType<typeof startEmbeddedRunner>) => Promise<void>) {
  const runner = startEmbeddedRunner();
  try {
    await body(runner);
  } finally {
    rx.release();
    await runner.stop();
  }
}

describe("the runner's pools", () => {
  describe("with a webhook pool of four places (one message per job), of which a business may hold two", () => {
    beforeEach(() => {
      process.env.WEBHOOK_CONCURRENCY = "4";
      process.env.JOB_POLL_MS = "50";
    });
    afterEach(() => {
      delete process.env.WEBHOOK_CONCURRENCY;
      delete process.env.JOB_POLL_MS;
    });

    it("another business's queued event, and its webhook message, finish while an endpoint hangs with all the places its business may hold", async () => {
      // A business not seen yet holds one place until a delivery of it ends in time (pool-room.ts).
      const slow = await testBusiness();
      await createWebhook(slow.businessId, { url: `${rx.url}/hang`, environment: "TEST" });
      rx.hang("/hang");
      // Three messages: one place hangs, the others wait their turn.
      await messages(slow.businessId, [1, 2, 3]);
      await running(async (runner) => {
        await until("the pool to take a delivery", async () => rx.held(), (n) => n === 1);
        const other = await testBusiness();
        await createWebhook(other.businessId, { url: `${rx.url}/fine`, environment: "TEST" });
        const { job } = await queuedEvent(other, { eventName: "signup" });
        await messages(other.businessId, [0]);
        runner.wake();
        const done = await until("the other business's event", () => db.job.findUniqueOrThrow({ where: { id: job.id } }), (j) => j.status === "SUCCEEDED" || j.status === "FAILED");
        expect(done.status).toBe("SUCCEEDED");
        // Its message is delivered in the places the hanging business cannot take.
        await delivered("the other business's message", other.businessId);
        // It finished while the endpoint still had its delivery in hand, unanswered: no attempt
        // has ended yet (one ends when the endpoint answers or the delivery times out).
        expect(rx.held()).toBe(1);
        expect(await db.webhookMessage.count({ where: { businessId: slow.businessId, attempts: { gt: 0 } } })).toBe(0);
        expect(rx.received.filter((r) => r.path.startsWith("/hang"))).toHaveLength(1);
        // Once the endpoint answers, the pool goes on: every message gets its attempt.
        rx.release();
        const attempted = await until(
          "every message's attempt",
          () => db.webhookMessage.findMany({ where: { businessId: slow.businessId } }),
          (ms) => ms.every((m) => m.attempts >= 1),
        );
        expect(attempted).toHaveLength(3);
      });
    }, 120_000);

    it("two businesses whose endpoints hang at once cannot fill the webhook pool between them: a third business's message is delivered", async () => {
      // Each may hold two of the four places: the two would fill the pool.
      rx.hang("/stuck");
      const hanging = [await testBusiness(), await testBusiness()];
      for (const [i, b] of hanging.entries()) {
        await createWebhook(b.businessId, { url: `${rx.url}/stuck/${i}`, environment: "TEST" });
        await messages(b.businessId, [1, 2, 3]);
      }
      await running(async (runner) => {
        await until("a delivery of each hanging business", async () => new Set(rx.received.filter((r) => r.path.startsWith("/stuck")).map((r) => r.path)).size, (n) => n === 2);
        const other = await testBusiness();
        await createWebhook(other.businessId, { url: `${rx.url}/fine`, environment: "TEST" });
        await messages(other.businessId, [0]);
        runner.wake();
        await delivered("the third business's message", other.businessId);
        // Delivered while both endpoints still hang, one delivery each.
        expect(rx.held()).toBe(2);
        expect(await db.webhookMessage.count({ where: { businessId: { in: hanging.map((b) => b.businessId) }, attempts: { gt: 0 } } })).toBe(0);
      });
    }, 120_000);
  });

  it("events finish, its own business's too, while payout runs wait for a chain that does not answer", async () => {
    process.env.PAYOUT_CONCURRENCY = "2";
    process.env.JOB_POLL_MS = "50";
    process.env.CHAIN_RPC_URL_TEST = `${rx.url}/chain`;
    rx.hang("/chain");
    const paying = await testBusiness();
    const other = await testBusiness();
    // Two payout runs: both places of the payout pool wait on the chain.
    await queuedJob(paying, "REWARD_PAYOUT", { reason: "test" });
    await queuedJob(other, "REWARD_PAYOUT", { reason: "test" });
    const runner = startEmbeddedRunner();
    try {
      await until("both payout runs to call the chain", async () => rx.held(), (n) => n >= 2);
      const mine = await queuedEvent(paying, { eventName: "signup" });
      const theirs = await queuedEvent(other, { eventName: "signup" });
      runner.wake();
      for (const { job } of [mine, theirs]) {
        const done = await until("an event while the chain hangs", () => db.job.findUniqueOrThrow({ where: { id: job.id } }), (j) => j.status === "SUCCEEDED" || j.status === "FAILED");
        expect(done.status).toBe("SUCCEEDED");
      }
      // The chain still has both runs' calls in hand, unanswered: the payout jobs are still running.
      expect(rx.held()).toBeGreaterThanOrEqual(2);
      expect(await db.job.count({ where: { type: "REWARD_PAYOUT", status: "RUNNING" } })).toBe(2);
    } finally {
      rx.release();
      await runner.stop();
      delete process.env.PAYOUT_CONCURRENCY;
      delete process.env.JOB_POLL_MS;
      delete process.env.CHAIN_RPC_URL_TEST;
    }
  }, 120_000);

  it("the process's event loop gets its turns while the runner drains a backlog (on PGlite, whose queries never return to it, nothing else ran until the backlog was done)", async () => {
    process.env.JOB_POLL_MS = "20";
    process.env.JOB_BATCH_SIZE = "5";
    const busy = await testBusiness();
    const events: string[] = [];
    for (let i = 0; i < 60; i++) events.push((await queuedEvent(busy, { eventName: "signup" })).job.id);
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(Date.now()), 1);
    const runner = startEmbeddedRunner();
    try {
      const jobs = await until("every event", () => db.job.findMany({ where: { id: { in: events } } }), (js) => js.every((j) => j.status === "SUCCEEDED"));
      const finished = jobs.map((j) => j.finishedAt!.getTime()).sort((a, b) => a - b);
      // Twelve full claims one after the other: timers fired between the first job's end and the last's.
      expect(finished[finished.length - 1] - finished[0]).toBeGreaterThan(0);
      expect(ticks.filter((t) => t > finished[0] && t < finished[finished.length - 1]).length).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
      await runner.stop();
      delete process.env.JOB_BATCH_SIZE;
      delete process.env.JOB_POLL_MS;
    }
  }, 60_000);

  it("webhook deliveries yield to their business's backlog of events: its burst is decided first, another business's message does not wait, and a job due for WEBHOOK_YIELD_MS is taken anyway", async () => {
    process.env.JOB_POLL_MS = "20";
    process.env.JOB_BATCH_SIZE = "2";
    process.env.WEBHOOK_YIELD_MS = "60000";
    // A backlog of the hooked business's own events: every claim of two events is full until the
    // last ones. (On PGlite the one connection serialises the pools' statements behind the event
    // loop's anyway; on PostgreSQL, without the yield, the message is delivered before most events finish.)
    const hooked = await testBusiness();
    await createWebhook(hooked.businessId, { url: `${rx.url}/yield`, environment: "TEST" });
    const other = await testBusiness();
    await createWebhook(other.businessId, { url: `${rx.url}/not-held`, environment: "TEST" });
    const events: string[] = [];
    for (let i = 0; i < 60; i++) events.push((await queuedEvent(hooked, { eventName: "signup" })).job.id);
    const runner = startEmbeddedRunner();
    try {
      // The messages are written once the runner is in the backlog (its first claim taken).
      await until("the backlog's first events", () => db.job.count({ where: { id: { in: events }, status: "SUCCEEDED" } }), (n) => n > 0);
      for (const b of [hooked, other]) await messages(b.businessId, [1]);
      runner.wake();
      // Another business's message goes while the burst is still being decided.
      await until("the other business's delivery", async () => rx.received.filter((r) => r.path === "/not-held").length, (n) => n === 1);
      const otherAt = rx.received.find((r) => r.path === "/not-held")!.at;
      expect(await db.job.count({ where: { id: { in: events }, OR: [{ finishedAt: null }, { finishedAt: { gt: new Date(otherAt) } }] } })).toBeGreaterThan(0);
      await until("the message's delivery", async () => rx.received.filter((r) => r.path === "/yield").length, (n) => n === 1);
      const deliveredAt = rx.received.find((r) => r.path === "/yield")!.at;
      const jobs = await until("every event", () => db.job.findMany({ where: { id: { in: events } } }), (js) => js.every((j) => j.status === "SUCCEEDED"));
      // The message waited for the backlog: all events but the last claims' (the backlog ends
      // when a claim comes back short, while the claims before it may still run) came first.
      expect(jobs.filter((j) => j.finishedAt!.getTime() <= deliveredAt).length).toBeGreaterThanOrEqual(events.length - 4);
    } finally {
      await runner.stop();
      delete process.env.JOB_BATCH_SIZE;
      delete process.env.JOB_POLL_MS;
    }
    // The bound: while yielding, a delivery job due for at least WEBHOOK_YIELD_MS is claimed, one due now is not.
    const overdue = await db.job.create({ data: { id: `yield-old-${hooked.businessId}`, businessId: hooked.businessId, environment: "TEST", type: "WEBHOOK_DELIVER", payload: { messageIds: ["none"] }, runAt: new Date(Date.now() - 61_000) } });
    const fresh = await db.job.create({ data: { id: `yield-new-${hooked.businessId}`, businessId: hooked.businessId, environment: "TEST", type: "WEBHOOK_DELIVER", payload: { messageIds: ["none"] } } });
    const claimed = (await claimDueJobs(10, ["WEBHOOK_DELIVER"], 60_000)).map((j) => j.id);
    expect(claimed).toContain(overdue.id);
    expect(claimed).not.toContain(fresh.id);
    expect((await claimDueJobs(10, ["WEBHOOK_DELIVER"], 0)).map((j) => j.id)).toContain(fresh.id);
    await db.job.deleteMany({ where: { id: { in: [overdue.id, fresh.id] } } });
    delete process.env.WEBHOOK_YIELD_MS;
  }, 120_000);
});

describe("the pause between polls", () => {
  it("on PGlite an idle runner's polls space out up to JOB_IDLE_POLL_MS, and back to JOB_POLL_MS once a claim finds work; on PostgreSQL they never do", () => {
    const pglite = pollPause(() => "pglite");
    expect([0, 0, 0, 0, 0].map(pglite)).toEqual([250, 500, 1000, 1000, 1000]);
    expect(pglite(3)).toBe(250);
    expect(pglite(0)).toBe(250);
    const postgres = pollPause(() => "postgres");
    expect([0, 0, 0, 0].map(postgres)).toEqual([250, 250, 250, 250]);
  });
});
