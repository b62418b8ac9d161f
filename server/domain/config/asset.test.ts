// The invariants of a program's asset the database holds (migration 0210): the asset cannot change
// once the environment has a ledger entry, whoever writes it (the trigger), and a token Transfer
// log is credited once, ever (FundingTransfer's key). Each test fails when its guard is removed.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, fund } from "../../../tests/support/domain";
import { readAsset } from "../assets/read";

const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const token = { asset: "ERC20", tokenAddress: TOKEN, symbol: "USDC", decimals: 6 };

describe("EnvironmentAsset", () => {
  it("changes freely before the first ledger entry; after it, no writer can change it (the trigger)", async () => {
    const { businessId } = await domainBusiness();
    await db.environmentAsset.create({ data: { businessId, environment: "TEST", ...token } });
    expect(await readAsset(db, businessId, "TEST")).toMatchObject({ asset: "ERC20", symbol: "USDC", decimals: 6 });
    await fund(businessId, "TEST", "5");
    await expect(db.environmentAsset.update({ where: { businessId_environment: { businessId, environment: "TEST" } }, data: { asset: "ETH", tokenAddress: null, symbol: "ETH", decimals: 18 } })).rejects.toThrow(/ASSET_LOCKED/);
    await expect(db.environmentAsset.delete({ where: { businessId_environment: { businessId, environment: "TEST" } } })).rejects.toThrow(/ASSET_LOCKED/);
    // The other environment has no entry: still free.
    await db.environmentAsset.create({ data: { businessId, environment: "LIVE", ...token } });
    expect((await readAsset(db, businessId, "TEST")).symbol).toBe("USDC");
  });

  it("an ETH environment with entries cannot become a token one", async () => {
    const { businessId } = await domainBusiness();
    await fund(businessId, "TEST", "1");
    await expect(db.environmentAsset.create({ data: { businessId, environment: "TEST", ...token } })).rejects.toThrow(/ASSET_LOCKED/);
    expect((await readAsset(db, businessId, "TEST")).asset).toBe("ETH");
  });
});

describe("FundingTransfer", () => {
  it("credits a token Transfer log once, ever", async () => {
    const { businessId } = await domainBusiness();
    await fund(businessId, "TEST", "1");
    const entry = await db.ledgerEntry.findFirstOrThrow({ where: { businessId } });
    const txHash = `0x${randomUUID().replaceAll("-", "").padEnd(64, "0")}`;
    const log = { environment: "TEST" as const, txHash, logIndex: 3, businessId, ledgerEntryId: entry.id, tokenAddress: TOKEN, fromAddress: TOKEN, amount: "1000000" };
    await db.fundingTransfer.create({ data: log });
    await expect(db.fundingTransfer.create({ data: log })).rejects.toThrow();
    await db.fundingTransfer.create({ data: { ...log, logIndex: 4 } });
    expect(await db.fundingTransfer.count({ where: { txHash } })).toBe(2);
  });
});
