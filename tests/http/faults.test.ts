// The fault suite's short version (bench/faults/suite.ts; the full run is `npm run bench:faults`,
// figures in docs/reliability.md). Each experiment ends with the books checked: no accepted event
// lost or doubled, every event processed, no reward or payout twice, the ledger and audit chains
// verify, the books reconcile with the chain. In the PostgreSQL lane every experiment runs on a
// private cluster (initdb in a temp dir: the shared server is never crashed, its backends never
// terminated, its xmin never pinned); the PGlite lane runs the lost answer on PGlite.
// Runs in every HTTP run (CI included) at these short sizes, but for the payout process killed at
// each step, which takes minutes of restarts: that one runs with FAULTS=1 (in the default run,
// tests/http/payouts-crash.test.ts kills the app at the same steps, on both databases).
// `npx vitest run --project http tests/http/faults.test.ts` (with TEST_DB=postgres for the cluster lane).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startApp, type RunningApp } from "../support/app";
import { ownDatabase, testDbKind } from "../support/database";
import { startChain, startCluster, type Cluster } from "../../bench/faults/kit";
import { lostAnswerFault, payoutKillFault, pinnedXminFault, restartMidBatchFault, terminateFault, webhookFault, workerKillFault } from "../../bench/faults/suite";

const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
});

const onPglite = testDbKind() === "pglite";
/** The payout kills (minutes of restarts) run on demand (`FAULTS=1`), reported skipped otherwise. */
const full = process.env.FAULTS === "1";

let rpc = "";
beforeAll(async () => {
  const chain = await startChain();
  cleanups.push(chain.stop);
  rpc = chain.rpc;
});

/** A database of this lane's kind, and an app on it with fast job polling and short leases. */
async function appOnOwnDatabase() {
  const own = await ownDatabase();
  cleanups.push(own.drop);
  const env = { ...own.env, CHAIN_RPC_URL_TEST: rpc, PAYOUT_INTERVAL_MS: "0", JOB_POLL_MS: "100", JOB_LEASE_MS: "5000" };
  const app = await startApp(env);
  cleanups.push(() => app.stop());
  return { app, env };
}

describe.skipIf(!onPglite)("faults on PGlite (PGlite lane)", () => {
  it("a lost answer: /track, /track/batch and /sdk/referrals/apply retried with the same key are recorded once", async () => {
    const { app, env } = await appOnOwnDatabase();
    const r = await lostAnswerFault(app, env, rpc, 10);
    expect(r.broken, JSON.stringify(r.figures)).toEqual([]);
    expect((r.figures.proxy as { dropped: number }).dropped).toBeGreaterThanOrEqual(10);
  }, 300_000);
});

describe.skipIf(onPglite)("faults on a private PostgreSQL cluster (PostgreSQL lane)", () => {
  let cluster: Cluster;
  let web: RunningApp;
  beforeAll(async () => {
    cluster = await startCluster();
    cleanups.push(() => cluster.remove());
    web = await startApp({ DATABASE_URL: cluster.url, CHAIN_RPC_URL_TEST: rpc, PAYOUT_INTERVAL_MS: "0", JOB_RUNNER: "off" });
    cleanups.push(() => web.stop());
  });

  const base = () => ({ DATABASE_URL: cluster.url, CHAIN_RPC_URL_TEST: rpc, PAYOUT_INTERVAL_MS: "0", JOB_POLL_MS: "100", JOB_LEASE_MS: "5000" });

  it("a lost answer: /track, /track/batch and /sdk/referrals/apply retried with the same key are recorded once", async () => {
    // Each app with an embedded runner stops with its experiment: left running on the cluster, it
    // would drain the next experiments' backlogs itself.
    const app = await startApp(base());
    const r = await lostAnswerFault(app, base(), rpc, 20).finally(() => app.stop());
    expect(r.broken, JSON.stringify(r.figures)).toEqual([]);
    expect((r.figures.proxy as { dropped: number }).dropped).toBeGreaterThanOrEqual(20);
  }, 300_000);

  it("a webhook receiver that resets connections or answers after the timeout: every message delivered, none recorded twice", async () => {
    const app = await startApp(base());
    const r = await webhookFault(app, base(), rpc, 3, 1, 90_000).finally(() => app.stop());
    expect(r.broken, JSON.stringify(r.figures)).toEqual([]);
    const rx = r.figures.receiver as { resets: number; late: number };
    expect(rx.resets + rx.late).toBeGreaterThan(0);
  }, 300_000);

  it.skipIf(!full)("the payout process killed before a broadcast, after it and before the confirmation: each wallet paid once (FAULTS=1)", async () => {
    const r = await payoutKillFault(base(), rpc, await freePort(), 3, 1);
    expect(r.broken, JSON.stringify(r.figures)).toEqual([]);
  }, 300_000);

  it("workers SIGKILLed every few seconds during a drain", async () => {
    const r = await workerKillFault(web, cluster, rpc, 3000, 3000);
    expect(r.broken, JSON.stringify(r.figures)).toEqual([]);
    expect(r.figures.kills).toBeGreaterThan(0);
  }, 180_000);

  it("PostgreSQL crashed and restarted while a worker is in the middle of a batch", async () => {
    const r = await restartMidBatchFault(web, cluster, rpc, 300);
    expect(r.broken, JSON.stringify(r.figures)).toEqual([]);
  }, 180_000);

  it("a transaction idle with a pinned xmin: the drain continues, and recovers once it ends", async () => {
    const r = await pinnedXminFault(web, cluster, rpc, 100, 5000);
    expect(r.broken, JSON.stringify(r.figures)).toEqual([]);
  }, 180_000);

  it("pg_terminate_backend on the app's connections several times a second during intake and a drain", async () => {
    const app = await startApp(base());
    const r = await terminateFault(app, cluster, rpc, 200, 250, 5000).finally(() => app.stop());
    expect(r.broken, JSON.stringify(r.figures)).toEqual([]);
    expect(r.figures.terminated).toBeGreaterThan(0);
  }, 180_000);
});
