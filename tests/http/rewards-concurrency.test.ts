// Never overspend under concurrency, over real HTTP: 100 simultaneous qualifying /track calls
// against a pool funded (by a real deposit) for exactly 10 rewards. Runs on its own app
// instance so that this burst does not slow the other test files' requests down.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startApp, tempPgliteDir, type RunningApp } from "../support/app";
import { balanceEth, participant, rewardsBusiness, trackReferral } from "./rewards-helpers";

let app: RunningApp;
beforeAll(async () => {
  const databaseUrl = inject("databaseUrl");
  app = await startApp({ ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { PGLITE_DIR: tempPgliteDir() }), CHAIN_RPC_URL_TEST: inject("chainRpcUrl") });
});
afterAll(async () => {
  await app?.stop();
});

describe("pool under concurrency", () => {
  it("100 concurrent qualifying events against a pool that covers 10: exactly 10 paid, 90 INSUFFICIENT_POOL, balance exactly 0", async () => {
    const url = app.url;
    const { owner, secret } = await rewardsBusiness({ referralRewardEth: "0.01", fundEth: "0.1", url });
    const referrers = await Promise.all(Array.from({ length: 100 }, () => participant(secret, {}, url)));
    const results = await Promise.all(referrers.map((p) => trackReferral(secret, p.referralCode, { url })));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const rewards = results.flatMap((r) => r.body.rewards ?? []);
    expect(rewards).toHaveLength(100);
    expect(rewards.filter((x: any) => x.status === "PAID")).toHaveLength(10);
    expect(rewards.filter((x: any) => x.status === "REFUSED" && x.reason === "INSUFFICIENT_POOL")).toHaveLength(90);
    expect(await balanceEth(owner)).toBe("0");
    // Every reward is recorded and listed (cursor pagination over all 100).
    let listed = 0;
    let cursor: string | null = null;
    do {
      const page: any = await owner.call("GET", `/business/rewards?environment=TEST&limit=40${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      listed += page.body.data.length;
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(listed).toBe(100);
    const ledger = await owner.call("GET", "/business/ledger?environment=TEST&kind=REWARD&limit=200");
    expect(ledger.body.data).toHaveLength(10);
  });
});
