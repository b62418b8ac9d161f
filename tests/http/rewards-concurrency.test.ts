// Never overspend under concurrency, over real HTTP: 100 simultaneous qualifying /track calls
// (queued EVENT_PROCESS jobs, the path AUTO takes for referral events) against a pool funded by
// a real deposit for exactly 10 rewards. Runs on its own app instance and database (startApp's
// default), so that this burst does not slow the other test files' requests down and only this
// app's runner takes its jobs.
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from "vitest";
import { startApp, type RunningApp } from "../support/app";
import { waitForJob } from "./sdk-helpers";
import { balanceEth, participant, rewardsBusiness, trackReferral } from "./rewards-helpers";

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ CHAIN_RPC_URL_TEST: inject("chainRpcUrl") });
});
afterAll(async () => {
  await app?.stop();
});

describe("pool under concurrency", () => {
  it("100 concurrent qualifying events against a pool that covers 10: exactly 10 paid, 90 INSUFFICIENT_POOL, balance exactly 0", async () => {
    // A failure here is about the app's job runner: keep what it said.
    onTestFailed(() => console.log(`[app log]\n${app.logs().slice(-4000)}`));
    const url = app.url;
    const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0.01", fundEth: "0.1", general: { eventProcessing: "AUTO" }, url });
    const referrers = await Promise.all(Array.from({ length: 100 }, () => participant(secret, {}, url)));
    const accepted = await Promise.all(referrers.map((p) => trackReferral(secret, p.referralCode, { url })));
    for (const r of accepted) expect(r.status, JSON.stringify(r.body)).toBe(202);
    // One poller at a time: 100 of them polling at once would keep the app's CPU from the jobs.
    const jobs = [];
    for (const r of accepted) jobs.push(await waitForJob(secret, r.body.jobId, url, 120_000));
    expect(jobs.filter((j) => j.status === "SUCCEEDED")).toHaveLength(100);

    let rewards: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await owner.call("GET", `/business/rewards?environment=TEST&limit=40${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      rewards = rewards.concat(page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(rewards).toHaveLength(100);
    expect(rewards.filter((x) => x.status === "PAID")).toHaveLength(10);
    expect(rewards.filter((x) => x.status === "REFUSED" && x.reason === "INSUFFICIENT_POOL")).toHaveLength(90);
    expect(new Set(rewards.map((x) => x.eventId)).size).toBe(100);
    expect(await balanceEth(owner)).toBe("0");
    const ledger = await owner.call("GET", "/business/ledger?environment=TEST&kind=REWARD&limit=200");
    expect(ledger.body.data).toHaveLength(10);
  }, 180_000); // ~26 s alone on PostgreSQL; CI runs both databases' HTTP layers at once
});
