// The running pool balance and the invariants the database guards (migration 0010):
// Pool.balanceWei = SUM(LedgerEntry.amountWei) at every commit, never negative; one ledger entry
// per reward and kind; at most one paid REFERRAL (and BONUS) reward per referral; a txHash
// credited once. The concurrent bursts fail when the pool lock (lockPool's FOR UPDATE, on
// PostgreSQL: PGlite runs one transaction at a time) or the CHECK constraint is removed.
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db, type Tx } from "../../db/client";
import { applyMigrations } from "../../db/migrate";
import type { Participant } from "../../db/generated";
import { ethToWei, weiToDb } from "../../shared/money";
import { recordReferral } from "../referrals/service";
import { settleEvent } from "../rewards/engine";
import { creditLedger, getBalanceWei, getLedgerSumWei, lockPool } from "./service";
import { debitLedger } from "../rules/debit";

const migrationsDir = () => path.join(process.cwd(), "prisma", "migrations");
const hex = () => randomBytes(5).toString("hex");
const ENV = "TEST" as const;
const TX = { timeout: 120_000, maxWait: 120_000 };

async function business(config: Record<string, unknown> = {}) {
  const b = await db.business.create({ data: { name: "Balance Co", ownerId: `owner-${hex()}` } });
  await db.businessConfig.create({ data: { businessId: b.id, referralRewardWei: weiToDb(ethToWei("0.01")), bonusWei: "0", ...config } });
  await db.referralSettings.create({ data: { businessId: b.id } });
  return b.id;
}

const participant = (businessId: string, extra: Partial<Participant> = {}) =>
  db.participant.create({ data: { businessId, environment: ENV, referralCode: `C${hex().toUpperCase()}`, email: `${hex()}@example.com`, ...extra } });

const fund = (businessId: string, amountWei: bigint) =>
  db.$transaction((tx) => creditLedger(tx, { businessId, environment: ENV, amountWei, kind: "FUNDING", memo: "test fixture" }));

async function expectBalanceEqualsLedger(businessId: string) {
  const [balance, sum] = [await getBalanceWei(db, businessId, ENV), await getLedgerSumWei(db, businessId, ENV)];
  expect(balance).toBe(sum);
  expect(balance >= 0n).toBe(true);
  return balance;
}

/** The SDK pipeline's part, as in engine.test.ts: referral, event, settleEvent, outcome. */
function track(businessId: string, referrer: Participant, referred: Participant) {
  return db.$transaction(async (tx: Tx) => {
    const { referral } = await recordReferral(tx, { businessId, environment: ENV, apiKeyId: null }, { referrer, referred });
    const event = await tx.trackedEvent.create({ data: { businessId, environment: ENV, eventName: "purchase", referralId: referral.id } });
    const result = await settleEvent(tx, { event, referral });
    await tx.trackedEvent.update({ where: { id: event.id }, data: { status: result.status, reason: result.reason ?? null, processedAt: new Date() } });
    return result;
  }, TX);
}

describe("running pool balance", () => {
  it("follows every ledger write in the same transaction, whatever the entry's kind", async () => {
    const b = await business();
    expect(await getBalanceWei(db, b, ENV)).toBe(0n);
    await fund(b, 1000n);
    await db.$transaction(async (tx) => {
      const pool = await lockPool(tx, b, ENV);
      expect(pool.balanceWei).toBe(1000n);
      const r = await debitLedger(tx, pool, { businessId: b, environment: ENV, amountWei: 250n, kind: "REWARD" });
      expect(r.balanceWei).toBe(750n);
      expect(pool.balanceWei).toBe(750n);
      // Inside the transaction the pool row already shows the debit.
      expect(await getBalanceWei(tx, b, ENV)).toBe(750n);
    });
    // A raw insert (any kind, signed amount) moves the balance too: the database keeps it.
    await db.ledgerEntry.create({ data: { businessId: b, environment: ENV, kind: "ADJUSTMENT", amountWei: "-50" } });
    await db.ledgerEntry.createMany({
      data: [
        { businessId: b, environment: ENV, kind: "ADJUSTMENT", amountWei: "-700" },
        { businessId: b, environment: ENV, kind: "ADJUSTMENT", amountWei: "+5" },
      ],
    });
    expect(await expectBalanceEqualsLedger(b)).toBe(5n);
    expect(await getBalanceWei(db, b, "LIVE")).toBe(0n);
  });

  it("the database refuses overspend, ledger edits, a reward debited twice, a second paid referral reward and a txHash credited twice", async () => {
    const b = await business();
    await fund(b, 100n);
    // Overspend, even by code that skips the balance check.
    await expect(
      db.$transaction(async (tx) => debitLedger(tx, await lockPool(tx, b, ENV), { businessId: b, environment: ENV, amountWei: 101n, kind: "REWARD" })),
    ).rejects.toThrow(/Pool_balanceWei_nonnegative|check constraint/);
    await expect(db.ledgerEntry.create({ data: { businessId: b, environment: ENV, kind: "ADJUSTMENT", amountWei: "-101" } })).rejects.toThrow();
    // A pool seen for the first time cannot start negative either.
    await expect(db.ledgerEntry.create({ data: { businessId: b, environment: "LIVE", kind: "ADJUSTMENT", amountWei: "-1" } })).rejects.toThrow();
    // The ledger is append-only.
    const entry = await db.ledgerEntry.findFirstOrThrow({ where: { businessId: b } });
    await expect(db.ledgerEntry.update({ where: { id: entry.id }, data: { amountWei: "1000000" } })).rejects.toThrow(/append-only/);
    expect(await expectBalanceEqualsLedger(b)).toBe(100n);

    // One ledger entry per reward (and kind).
    const [alice, bob] = [await participant(b), await participant(b)];
    const referral = await db.referral.create({ data: { businessId: b, environment: ENV, referrerId: alice.id, referredId: bob.id, status: "REWARDED" } });
    const paid = { businessId: b, environment: ENV, participantId: alice.id, referralId: referral.id, kind: "REFERRAL" as const, requestedWei: "10", amountWei: "10", status: "PAID" as const, paidAt: new Date() };
    const reward = await db.reward.create({ data: paid });
    await db.ledgerEntry.create({ data: { businessId: b, environment: ENV, kind: "REWARD", amountWei: "-10", rewardId: reward.id } });
    await expect(db.ledgerEntry.create({ data: { businessId: b, environment: ENV, kind: "REWARD", amountWei: "-10", rewardId: reward.id } })).rejects.toThrow();
    // At most one paid REFERRAL reward per referral (refused or held ones may be several).
    await expect(db.reward.create({ data: paid })).rejects.toThrow();
    await db.reward.create({ data: { ...paid, status: "REFUSED", amountWei: "0", paidAt: null } });
    await db.reward.create({ data: { ...paid, status: "REFUSED", amountWei: "0", paidAt: null } });
    // A txHash is credited once.
    const txHash = `0x${randomBytes(32).toString("hex")}`;
    await db.$transaction((tx) => creditLedger(tx, { businessId: b, environment: ENV, amountWei: 7n, kind: "FUNDING", txHash }));
    await expect(db.$transaction((tx) => creditLedger(tx, { businessId: b, environment: ENV, amountWei: 7n, kind: "FUNDING", txHash }))).rejects.toThrow();
    expect(await expectBalanceEqualsLedger(b)).toBe(97n);
  });

  it("a concurrent burst of rewards: exactly what the pool covers is paid, the rest refused, no error, pool = ledger sum", async () => {
    // Without lockPool's FOR UPDATE, concurrent rewards read a stale balance and their debits
    // hit the CHECK constraint: the burst then fails with errors instead of clean refusals.
    const b = await business();
    await fund(b, ethToWei("0.12"));
    const n = 60;
    const referrers = await Promise.all(Array.from({ length: n }, () => participant(b)));
    const referred = await Promise.all(Array.from({ length: n }, () => participant(b)));
    const settled = await Promise.allSettled(referrers.map((r, i) => track(b, r, referred[i])));
    const errors = settled.filter((s) => s.status === "rejected").map((s) => String((s).reason).slice(0, 200));
    expect(errors).toEqual([]);
    const rewards = settled.flatMap((s) => (s.status === "fulfilled" ? s.value.rewards : []));
    expect(rewards).toHaveLength(n);
    expect(rewards.filter((r) => r.status === "PAID")).toHaveLength(12);
    expect(rewards.filter((r) => r.status === "REFUSED" && r.reason === "INSUFFICIENT_POOL")).toHaveLength(n - 12);
    expect(await expectBalanceEqualsLedger(b)).toBe(0n);
    expect(await db.ledgerEntry.count({ where: { businessId: b, kind: "REWARD" } })).toBe(12);
  }, 120_000);

  it("a concurrent burst of unchecked debits (buggy code): the database lets through only what the pool holds", async () => {
    // Each debit skips the balance check that payReward does: only the CHECK constraint stops
    // overspend. Without it every debit commits and the pool goes negative.
    const b = await business();
    await fund(b, 1000n);
    const debit = () =>
      db.$transaction(async (tx) => debitLedger(tx, await lockPool(tx, b, ENV), { businessId: b, environment: ENV, amountWei: 70n, kind: "REWARD" }), TX);
    const settled = await Promise.allSettled(Array.from({ length: 30 }, debit));
    const ok = settled.filter((s) => s.status === "fulfilled").length;
    expect(ok).toBe(14); // floor(1000 / 70)
    for (const s of settled) if (s.status === "rejected") expect(String(s.reason)).toMatch(/Pool_balanceWei_nonnegative|check constraint/);
    expect(await expectBalanceEqualsLedger(b)).toBe(1000n - 14n * 70n);
  }, 60_000);
});

describe("migration 0010", () => {
  it("backfills each pool's balance from its ledger and creates missing pool rows", async () => {
    const { PGlite } = await import("@electric-sql/pglite");
    const pg = await PGlite.create();
    const runner = { query: (sql: string, params?: unknown[]) => pg.query(sql, params) as Promise<{ rows: Record<string, unknown>[] }>, exec: async (sql: string) => void (await pg.exec(sql)) };
    const before = mkdtempSync(path.join(tmpdir(), "rts-mig-"));
    for (const name of readdirSync(migrationsDir()).filter((n) => n < "0010")) cpSync(path.join(migrationsDir(), name), path.join(before, name), { recursive: true });
    await applyMigrations(runner, before);
    await pg.exec(`
      INSERT INTO "Business" (id, name, "ownerId", "updatedAt") VALUES ('b1', 'One', 'o1', now()), ('b2', 'Two', 'o2', now());
      INSERT INTO "Pool" (id, "businessId", environment, "updatedAt") VALUES ('p1', 'b1', 'TEST', now());
      INSERT INTO "LedgerEntry" (id, "businessId", environment, kind, "amountWei") VALUES
        ('l1', 'b1', 'TEST', 'FUNDING', 1000), ('l2', 'b1', 'TEST', 'REWARD', -300), ('l3', 'b1', 'LIVE', 'FUNDING', 5),
        ('l4', 'b2', 'TEST', 'FUNDING', 40), ('l5', 'b2', 'TEST', 'REWARD', -40);`);
    await applyMigrations(runner);
    const rows = (await pg.query<{ b: string; e: string; bal: string }>(`SELECT "businessId" b, environment::text e, "balanceWei"::text bal FROM "Pool" ORDER BY 1, 2`)).rows;
    expect(rows).toEqual([
      { b: "b1", e: "LIVE", bal: "5" },
      { b: "b1", e: "TEST", bal: "700" },
      { b: "b2", e: "TEST", bal: "0" },
    ]);
    await pg.close();
  }, 120_000);
});
