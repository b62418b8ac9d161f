// Totals that agree: a business with one-time rewards, commissions, a partial refund, a staff
// reversal and a rejected self-referral, built through the domain services the routes call.
// Each total is computed here from the rows (Reward, RewardReversal, TrackedEvent, Referral) and
// every view that shows it is compared with it: Overview's analytics, Referrals' stats, top
// referrers, participants, the portal, commission analytics and the rewards CSV.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { domainBusiness, participant, uniqueEmail } from "../../../tests/support/domain";
import { acceptEvent } from "../tracking/service";
import { createRule } from "../commissions/service";
import { createRuleInput } from "../commissions/schemas";
import { reverseOneReward, reverseRewards } from "../reversals/reversals";
import { participantTotals } from "../payouts/totals";
import { portalMe } from "../portal/read";
import { rewardsCsv } from "../exports/csv";
import { rewardStateOf } from "../rewards/state";
import { ethToWei, toBigInt, unitsAt, weiToEth } from "../../shared/money";
import { getAnalytics } from "./service";
import { referralStats } from "./referral-stats";
import { getCommissionAnalytics } from "./commissions";

const today = () => new Date().toISOString().slice(0, 10);

async function seedBusiness() {
  const { businessId, scope } = await domainBusiness({ referralRewardEth: "0.01", bonusEth: "0.004", fundEth: "5" });
  await createRule(businessId, createRuleInput.parse({ environment: "TEST", name: "10% of purchases", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "10" }));
  const alice = await participant(scope, { name: "Alice" });
  const carol = await participant(scope, { name: "Carol" });
  const bob = uniqueEmail("bob");
  const buy = (referrer: string | undefined, email: string, amount: string) =>
    acceptEvent(scope, { eventName: "purchase", ...(referrer ? { referrer } : {}), amount, currency: "ETH", metadata: { referredUserEmail: email } }) as Promise<{ status: number; body: { status: string; reason: string | null; eventId: string } }>;
  // Bob's first purchase qualifies him (REFERRAL, BONUS, commission); his second pays a commission.
  const first = await buy(alice.referralCode, bob, "1");
  expect(first.body.status).toBe("PROCESSED");
  const second = await buy(undefined, bob, "0.5");
  expect(second.body).toMatchObject({ status: "PROCESSED", reason: null });
  // 40 % of the first purchase is refunded: that share of its rewards is reversed.
  expect((await reverseRewards(scope, { eventId: first.body.eventId, amount: "0.4", eventName: "refund", reason: "partial refund" })).status).toBe(200);
  // Carol's referral of Dan: staff reverse its one-time reward as a whole.
  const dan = await buy(carol.referralCode, uniqueEmail("dan"), "2");
  const danReward = await db.reward.findFirstOrThrow({ where: { eventId: dan.body.eventId, kind: "REFERRAL" } });
  await reverseOneReward(businessId, danReward.id, "fraud", "staff-user");
  // Alice refers herself: rejected, so nothing of it counts.
  const self = await buy(alice.referralCode, alice.email!, "3");
  expect(self.body.status).toBe("REJECTED");
  return { businessId, scope, alice, carol };
}

/** The totals as the rows say they are. */
async function fromRows(businessId: string) {
  const rewards = await db.reward.findMany({ where: { businessId, environment: "TEST" } });
  const reversals = await db.rewardReversal.findMany({ where: { businessId, environment: "TEST" } });
  const paid = rewards.filter((r) => r.status === "PAID");
  const sum = (xs: Array<{ amountWei: { toFixed(): string } }>) => xs.reduce((s, x) => s + toBigInt(x.amountWei), 0n);
  const rewarded = sum(paid);
  const reversed = sum(reversals);
  const earnedBy = new Map<string, bigint>();
  for (const r of paid) earnedBy.set(r.participantId, (earnedBy.get(r.participantId) ?? 0n) + toBigInt(r.amountWei));
  for (const v of reversals) earnedBy.set(v.participantId, earnedBy.get(v.participantId)! - toBigInt(v.amountWei));
  const events = await db.trackedEvent.findMany({ where: { businessId, environment: "TEST", amount: { not: null } }, include: { referral: true } });
  let revenue = 0n;
  for (const e of events) if (e.status === "PROCESSED" && e.referral && e.referral.status !== "REJECTED") revenue += unitsAt(e.amount!.toFixed(), 18) - unitsAt(e.refundedAmount.toFixed(), 18);
  return { rewards, rewarded, reversed, earned: rewarded - reversed, earnedBy, revenue: weiToEth(revenue) };
}

describe("totals that agree", () => {
  it("every view shows the totals the rows add up to", async () => {
    const { businessId, alice, carol } = await seedBusiness();
    const rows = await fromRows(businessId);
    expect(rows.reversed > 0n).toBe(true);
    expect(rows.rewards.some((r) => r.kind === "COMMISSION" && r.status === "PAID")).toBe(true);

    const stats = await referralStats(businessId, "TEST");
    expect([stats.ethRewarded, stats.ethReversed, stats.ethEarned]).toEqual([weiToEth(rows.rewarded), weiToEth(rows.reversed), weiToEth(rows.earned)]);

    const analytics = await getAnalytics(businessId, { environment: "TEST", from: today(), to: today() });
    expect([analytics.totals.ethRewarded, analytics.totals.ethEarned]).toEqual([stats.ethRewarded, stats.ethEarned]);
    expect(analytics.days[0].ethEarned).toBe(stats.ethEarned);

    const totals = await participantTotals(businessId, [alice.participantId, carol.participantId]);
    for (const top of [analytics.topReferrers, stats.topReferrers]) {
      expect(top.map((t) => t.participantId).sort()).toEqual([alice.participantId, carol.participantId].sort());
      for (const t of top) {
        expect(t.ethEarned, t.name ?? "").toBe(weiToEth(rows.earnedBy.get(t.participantId)!));
        expect(t.ethEarned).toBe(totals.get(t.participantId)!.earnedEth);
      }
    }
    // Alice's rejected self-referral is not a conversion; her rewarded figure counts her commissions.
    const a = analytics.topReferrers.find((t) => t.participantId === alice.participantId)!;
    expect(a.conversions).toBe(1);
    expect(toBigInt(ethToWei(a.ethRewarded)) > ethToWei("0.014")).toBe(true);
    // Everyone's earned adds up to the business's.
    let sum = 0n;
    for (const e of rows.earnedBy.values()) sum += e;
    expect(weiToEth(sum)).toBe(stats.ethEarned);

    const me = await portalMe({ sessionId: null, businessId, environment: "TEST", participantId: alice.participantId, returnUrl: null, expiresAt: new Date(Date.now() + 60_000), readOnly: true });
    expect(me.earnings.earnedEth).toBe(weiToEth(rows.earnedBy.get(alice.participantId)!));

    // Revenue attributed: processed events of referrals that are not rejected, net of refunds.
    const revenue = await getCommissionAnalytics(businessId, { environment: "TEST", from: today(), to: today() });
    expect(revenue.revenue).toEqual([expect.objectContaining({ currency: "ETH", amount: rows.revenue })]);
    const mine = await getCommissionAnalytics(businessId, { environment: "TEST", participantId: alice.participantId });
    expect(mine.revenue).toEqual([{ currency: "ETH", amount: "1.1", events: 2 }]);

    // The rewards CSV's status is where each reward stands.
    let csv = "";
    for await (const line of rewardsCsv(businessId, { environment: "TEST" })) csv += line;
    const [head, ...lines] = csv.trim().split("\r\n");
    const col = head.split(",").indexOf("status");
    const byId = new Map(lines.map((l) => [l.split(",")[0], l.split(",")[col]]));
    expect(byId.size).toBe(rows.rewards.length);
    for (const r of rows.rewards) expect(byId.get(r.id), r.kind).toBe(rewardStateOf(r));
    expect(new Set(byId.values())).toContain("REVERSED");
    expect([...byId.values()]).not.toContain("PAID");
  });
});
