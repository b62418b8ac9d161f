// The fault suite's experiments, each ending with the books check (books.ts): figures plus the
// invariants that broke (none, when all held). bench/faults.ts runs them at full size;
// tests/http/faults.test.ts runs short versions in CI.
import type { RunningApp } from "../../tests/support/app";
import { withDatabase } from "../../tests/support/database";
import { answeredBooks, brokenInvariants, storedBooks } from "./books";
import { killWorkers, pinnedXmin, queueBacklog, restartMidBatch, terminateBackends } from "./drain";
import { shop, type Cluster, type Shop } from "./kit";
import { lostAnswers, waitForJobs } from "./lost-answer";
import { killPayouts } from "./payouts";
import { faultyWebhooks, outboxState } from "./webhooks";

export interface Outcome {
  figures: Record<string, unknown>;
  broken: string[];
}

const REWARD = "0.0001";
/** A shop whose pool covers `events` rewards many times over. */
const shopFor = (app: RunningApp, rpc: string, processing: "SYNC" | "ASYNC", events: number) =>
  shop(app.url, rpc, { processing, rewardEth: REWARD, fundEth: String(Math.ceil(events * Number(REWARD) * 2) + 1), referrers: 50 });

/** The books of `s` on a PostgreSQL database the app shares (read while it runs). */
async function booksOn(url: string, s: Shop, acknowledged: string[], expectRewards?: number) {
  const answered = await answeredBooks(s);
  const stored = await withDatabase({ DATABASE_URL: url }, (sql) => storedBooks(sql, s.businessId, acknowledged));
  return { books: { ...stored, ...answered }, broken: brokenInvariants(stored, answered, expectRewards) };
}

/** Lost answers through a dropping proxy; `dbEnv` is the app's database (on PGlite it is read after `app` stops). */
export async function lostAnswerFault(app: RunningApp, dbEnv: Record<string, string>, rpc: string, requests: number): Promise<Outcome> {
  const s = await shopFor(app, rpc, "SYNC", requests * 3);
  const r = await lostAnswers(s, requests);
  const finished = await waitForJobs(s, r.jobs);
  const answered = await answeredBooks(s);
  if (!dbEnv.DATABASE_URL) await app.stop();
  const stored = await withDatabase(dbEnv, (sql) => storedBooks(sql, s.businessId, r.acknowledged));
  const broken = brokenInvariants(stored, answered, r.acknowledged.length);
  if (r.unanswered.length) broken.push(`${r.unanswered.length} requests never answered: ${r.unanswered.slice(0, 3).join("; ")}`);
  if (r.replayMismatch) broken.push(`${r.replayMismatch} retries answered differently from the first answer`);
  if (!finished) broken.push("queued jobs did not finish");
  const { acknowledged: _keys, jobs: _jobs, ...figures } = r;
  return { figures: { ...figures, acknowledgedEvents: r.acknowledged.length, books: { ...stored, ...answered } }, broken };
}

/** Worker processes SIGKILLed every `everyMs` while they drain `events` (web app `app` runs with JOB_RUNNER=off). */
export async function workerKillFault(app: RunningApp, c: Cluster, rpc: string, events: number, everyMs: number): Promise<Outcome> {
  const s = await shopFor(app, rpc, "ASYNC", events);
  const { keys } = await queueBacklog(s, events, `wk-${Date.now()}`);
  const r = await killWorkers(s, c, rpc, everyMs, events * 20 + 30_000);
  const { books, broken } = await booksOn(c.url, s, keys, keys.length);
  if (!r.drained) broken.push("the backlog did not drain");
  return { figures: { events, ...r, eventsPerSecond: Math.round((events * 1000) / r.drainMs), books }, broken };
}

/** The app's connections terminated every `everyMs` for `forMs` while it takes `events` and drains them (`app` runs its embedded runner). */
export async function terminateFault(app: RunningApp, c: Cluster, rpc: string, events: number, everyMs: number, forMs: number): Promise<Outcome> {
  const s = await shopFor(app, rpc, "ASYNC", events);
  const { keys, ...r } = await terminateBackends(s, c, events, everyMs, forMs);
  const { books, broken } = await booksOn(c.url, s, keys, keys.length);
  if (!r.drained) broken.push("the backlog did not drain");
  return { figures: { events, everyMs, ...r, books }, broken };
}

/** PostgreSQL crashes while a worker is in the middle of a batch (web app `app` runs with JOB_RUNNER=off). */
export async function restartMidBatchFault(app: RunningApp, c: Cluster, rpc: string, events: number): Promise<Outcome> {
  const s = await shopFor(app, rpc, "ASYNC", events);
  const { keys } = await queueBacklog(s, events, `rmb-${Date.now()}`);
  const r = await restartMidBatch(s, c, rpc, 3000);
  // The app reconnects by itself: its answers about the books come from new connections.
  const { books, broken } = await booksOn(c.url, s, keys, keys.length);
  if (!r.drained) broken.push("the backlog did not drain");
  if (!r.runningJobsAtCrash) broken.push("no batch was running at the crash");
  return { figures: { events, ...r, books }, broken };
}

/** A pinned xmin for `pinMs` during rounds of `events` (web app `app` runs with JOB_RUNNER=off). */
export async function pinnedXminFault(app: RunningApp, c: Cluster, rpc: string, events: number, pinMs: number): Promise<Outcome> {
  const s = await shopFor(app, rpc, "ASYNC", events * 40);
  const { keys, ...r } = await pinnedXmin(s, c, rpc, events, pinMs);
  const { books, broken } = await booksOn(c.url, s, keys, keys.length);
  if (r.recoveredMs === null) broken.push("the drain did not recover after the pin ended");
  return { figures: { ...r, books }, broken };
}

/** Payouts to `participants` with the app killed at a payout step about every `killEvery` broadcasts. */
export async function payoutKillFault(dbEnv: Record<string, string>, rpc: string, port: number, participants: number, killEvery: number): Promise<Outcome> {
  const r = await killPayouts(dbEnv, rpc, port, participants, killEvery);
  const { shop: s, app, closeProxy, ...figures } = r;
  const answered = await answeredBooks(s);
  await app.stop();
  await closeProxy();
  const stored = await withDatabase(dbEnv, (sql) => storedBooks(sql, s.businessId, []));
  const broken = brokenInvariants(stored, answered, participants);
  if (r.walletsPaidExactlyOnce !== participants) broken.push(`${r.walletsPaidTwice} wallets paid twice, ${r.walletsUnpaid} unpaid`);
  if (r.senderNonce !== r.confirmedPayouts) broken.push(`sender used ${r.senderNonce} nonces for ${r.confirmedPayouts} payouts`);
  if (!Object.values(r.kills).every((n) => n > 0)) broken.push(`not every step was hit: ${JSON.stringify(r.kills)}`);
  return { figures: { ...figures, books: { ...stored, ...answered } }, broken };
}

/** A receiver that resets or answers late; `dbEnv` as for lostAnswerFault. */
export async function webhookFault(app: RunningApp, dbEnv: Record<string, string>, rpc: string, events: number, badAttempts: number, timeoutMs: number): Promise<Outcome> {
  const s = await shopFor(app, rpc, "SYNC", events);
  const r = await faultyWebhooks(s, events, badAttempts, timeoutMs);
  const answered = await answeredBooks(s);
  if (!dbEnv.DATABASE_URL) await app.stop();
  const { stored, outbox } = await withDatabase(dbEnv, async (sql) => ({ stored: await storedBooks(sql, s.businessId, r.keys), outbox: await outboxState(sql, s.businessId) }));
  const broken = brokenInvariants(stored, answered, r.keys.length);
  if (outbox.delivered !== r.messages || outbox.undelivered) broken.push(`${outbox.delivered} of ${r.messages} messages delivered, ${outbox.undelivered} not`);
  if (outbox.successfulAttempts !== r.messages) broken.push(`${outbox.successfulAttempts} successful attempts recorded for ${r.messages} messages`);
  if (r.answeredInTime !== r.messages) broken.push(`${r.answeredInTime} of ${r.messages} messages reached the receiver in time`);
  const { keys: _keys, ...figures } = r;
  return { figures: { ...figures, outbox, books: { ...stored, ...answered } }, broken };
}
