// A referral reversed as a whole earns no more commissions (Referral.reversedAt), also in a
// commission-only program, where no one-time reward was ever paid to be reversed: a chargeback
// of the referred user (POST /sdk/rewards/reverse by referred user), a reversal event, staff
// reversing its one-time reward. A refund of one event (by eventId) reverses that event's share
// only: later purchases still earn. The migration's backfill marks referrals reversed before it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, uniqueEmail } from "../../../tests/support/domain";
import { acceptEvent } from "../tracking/service";
import { createRule } from "../commissions/service";
import { createRuleInput } from "../commissions/schemas";
import type { Scope } from "../../shared/scope";
import { reverseRewardsInput } from "./reversal-schemas";
import { reverseOneReward, reverseRewards } from "./reversals";

/** A program paying 10 % of purchases (in ETH) to the referrer, and `referralRewardEth` once (none by default), with a referred user made by a signup. */
async function program(o: { referralRewardEth?: string; general?: Record<string, unknown> } = {}) {
  const b = await domainBusiness({ referralRewardEth: o.referralRewardEth ?? "0", bonusEth: "0", fundEth: "10", general: { qualifyingEvents: ["signup"], ...o.general } });
  await createRule(b.businessId, createRuleInput.parse({ environment: "TEST", name: "10 %", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }));
  const referrer = await participant(b.scope);
  const email = uniqueEmail("bob");
  expect((await acceptEvent(b.scope, { eventName: "signup", referrer: referrer.referralCode, metadata: { referredUserEmail: email } }, { mode: "SYNC" })).status).toBe(200);
  const referral = await db.referral.findFirstOrThrow({ where: { businessId: b.businessId } });
  return { ...b, email, referralId: referral.id };
}

const track = async (scope: Scope, eventName: string, email: string, amount?: string) => {
  const r = await acceptEvent(scope, { eventName, metadata: { referredUserEmail: email }, ...(amount ? { amount, currency: "ETH" } : {}) }, { mode: "SYNC" });
  expect(r.status).toBe(200);
  return (await db.trackedEvent.findFirstOrThrow({ where: { businessId: scope.businessId, eventName }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] })).id;
};

/** The referral's commission rewards by event: [amount wei, payoutStatus]. */
const commissions = async (referralId: string) =>
  (await db.reward.findMany({ where: { referralId, kind: "COMMISSION" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map((w) => [w.amountWei.toFixed(), w.status, w.payoutStatus]);

describe("a referral reversed as a whole earns no more commissions", () => {
  it("commission-only program: a chargeback of the referred user stops later purchases from earning", async () => {
    const p = await program();
    expect(await db.reward.count({ where: { referralId: p.referralId, kind: { in: ["REFERRAL", "BONUS"] } } })).toBe(0);
    await track(p.scope, "purchase", p.email, "1");
    expect(await commissions(p.referralId)).toEqual([["100000000000000000", "PAID", "PAYABLE"]]);

    const r = await reverseRewards(p.scope, reverseRewardsInput.parse({ referredUserEmail: p.email, reason: "chargeback" }));
    expect(r.status).toBe(200);
    expect((await db.referral.findUniqueOrThrow({ where: { id: p.referralId } })).reversedAt).not.toBeNull();
    await track(p.scope, "purchase", p.email, "2");
    expect(await commissions(p.referralId)).toEqual([["100000000000000000", "PAID", "REVERSED"]]);
  });

  it("commission-only program: a reversal event of the referred user stops later purchases from earning", async () => {
    const p = await program({ general: { reversalEvents: ["chargeback"] } });
    await track(p.scope, "purchase", p.email, "1");
    await track(p.scope, "chargeback", p.email);
    expect((await db.referral.findUniqueOrThrow({ where: { id: p.referralId } })).reversedAt).not.toBeNull();
    await track(p.scope, "purchase", p.email, "2");
    expect(await commissions(p.referralId)).toEqual([["100000000000000000", "PAID", "REVERSED"]]);
  });

  it("a partial refund of one event reverses its share only: later purchases still earn", async () => {
    const p = await program();
    const first = await track(p.scope, "purchase", p.email, "1");
    const r = await reverseRewards(p.scope, reverseRewardsInput.parse({ eventId: first, amount: "0.5", reason: "partial refund" }));
    expect(r.status).toBe(200);
    const [w] = await db.reward.findMany({ where: { eventId: first } });
    expect(w.reversedWei.toFixed()).toBe("50000000000000000");
    expect((await db.referral.findUniqueOrThrow({ where: { id: p.referralId } })).reversedAt).toBeNull();
    await track(p.scope, "purchase", p.email, "2");
    expect(await commissions(p.referralId)).toEqual([
      ["100000000000000000", "PAID", "PAYABLE"],
      ["200000000000000000", "PAID", "PAYABLE"],
    ]);
  });

  it("staff reversing the referral's one-time reward stop its commissions", async () => {
    const p = await program({ referralRewardEth: "0.01" });
    const one = await db.reward.findFirstOrThrow({ where: { referralId: p.referralId, kind: "REFERRAL", status: "PAID" } });
    await reverseOneReward(p.businessId, one.id, "fraud", "user-staff");
    expect((await db.referral.findUniqueOrThrow({ where: { id: p.referralId } })).reversedAt).not.toBeNull();
    await track(p.scope, "purchase", p.email, "1");
    expect(await commissions(p.referralId)).toEqual([]);
  });

  it("the migration marks referrals whose one-time reward was reversed before it, as of that reversal", async () => {
    const p = await program({ referralRewardEth: "0.01" });
    const kept = await program({ referralRewardEth: "0.01" });
    const one = await db.reward.findFirstOrThrow({ where: { referralId: p.referralId, kind: "REFERRAL" } });
    await reverseRewards(p.scope, reverseRewardsInput.parse({ referredUserEmail: p.email, reason: "chargeback" }));
    // As the rows stood before the column: the reward reversed, the referral not marked.
    await db.referral.updateMany({ where: { id: { in: [p.referralId, kept.referralId] } }, data: { reversedAt: null } });
    const sql = readFileSync(path.join(import.meta.dirname, "../../../prisma/migrations/0163_referral_reversed_at/migration.sql"), "utf8");
    const backfill = sql.slice(sql.indexOf('UPDATE "Referral"'));
    await db.$executeRawUnsafe(backfill);
    const reversedAt = (await db.reward.findUniqueOrThrow({ where: { id: one.id } })).reversedAt;
    expect(reversedAt).not.toBeNull();
    expect((await db.referral.findUniqueOrThrow({ where: { id: p.referralId } })).reversedAt).toEqual(reversedAt);
    expect((await db.referral.findUniqueOrThrow({ where: { id: kept.referralId } })).reversedAt).toBeNull();
  });
});
