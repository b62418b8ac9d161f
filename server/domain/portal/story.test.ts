// The portal tells the story (issue 52, items 4 and 5), in process against PGlite: each reward
// says what it was for (masked person, event, purchase and rate of a commission), a refunded or
// reversed referral says so, a rejected self-referral is not counted, earnings per month follow
// the totals rule, a referred customer's portal reads as a customer's, and bonusRequiresWallet
// grants no bonus to a customer without a wallet at the event.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { acceptEvent } from "../tracking/service";
import { domainBusiness, uniqueEmail } from "../../../tests/support/domain";
import { upsertParticipant } from "../participants/service";
import { createRuleInput, updatePricingInput } from "../commissions/schemas";
import { createRule } from "../commissions/service";
import { updatePricing } from "../commissions/pricing";
import { reverseRewards } from "../reversals/reversals";
import { reverseRewardsInput } from "../reversals/reversal-schemas";
import { updateGeneralConfig } from "../config/service";
import { updateGeneralInput } from "../config/schemas";
import { payoutQueue } from "../payouts/queue";
import { portalMe, portalReferrals, portalRewards } from "./read";
import { createPortalSession } from "./sessions";
import { createPortalSessionInput, portalListInput } from "./schemas";
import { authenticatePortalToken } from "./sessions";
import type { Scope } from "../../shared/scope";

const list = portalListInput.parse({});
async function portalOf(scope: Scope, participantId: string) {
  const s = await createPortalSession(scope, createPortalSessionInput.parse({ participantId }));
  return (await authenticatePortalToken(s.token))!;
}
const purchase = (scope: Scope, email: string, amount: string, referrer?: string) =>
  acceptEvent(scope, { eventName: "purchase", ...(referrer ? { referrer } : {}), metadata: { referredUserEmail: email }, amount, currency: "USD" });

describe("portal: the story of each reward and referral", () => {
  it("names the person, event, purchase and rate; refunds and reversals say so; a self-referral is not counted", async () => {
    const { scope, businessId } = await domainBusiness({ referralRewardEth: "0.01", bonusEth: "0.002", fundEth: "10" });
    await updatePricing(businessId, updatePricingInput.parse({ environment: "TEST", source: "FIXED", rates: { USD: "3000" } }));
    await createRule(businessId, createRuleInput.parse({ environment: "TEST", name: "5 % of purchases", eventName: "purchase", recipient: "REFERRER", type: "PERCENT", percent: "5" }));
    const ann = await upsertParticipant(scope, { userId: "ann", email: uniqueEmail("ann"), name: "Ann Archer" });
    const bo = uniqueEmail("bo");
    const cy = uniqueEmail("cy");
    const dan = uniqueEmail("dan");
    expect((await purchase(scope, bo, "120.00", ann.referralCode)).status).toBe(200);
    expect((await purchase(scope, cy, "60.00", ann.referralCode)).status).toBe(200);
    expect((await purchase(scope, dan, "40.00", ann.referralCode)).status).toBe(200);
    // Ann's own sign-up through her code: rejected, never counted.
    const self = await acceptEvent(scope, { eventName: "purchase", referrer: ann.referralCode, metadata: { referredUserEmail: ann.email } });
    expect(self.status).toBe(200);
    // Cy's purchase is refunded in full; Bo stays.
    const cyEvent = await db.trackedEvent.findFirstOrThrow({ where: { businessId, referral: { referred: { email: cy } } } });
    expect((await reverseRewards(scope, reverseRewardsInput.parse({ eventId: cyEvent.id, reason: "refund" }))).status).toBe(200);
    // Dan's purchase is refunded in part; then Dan is charged back as a whole.
    const danEvent = await db.trackedEvent.findFirstOrThrow({ where: { businessId, referral: { referred: { email: dan } } } });
    expect((await reverseRewards(scope, reverseRewardsInput.parse({ eventId: danEvent.id, amount: "10.00", reason: "refund" }))).status).toBe(200);
    const partly = await portalReferrals(await portalOf(scope, ann.participantId), list);
    expect(partly.data.find((r) => r.referred === "d•••@example.com")).toMatchObject({ statusText: "Partly refunded", counted: true, reversedAt: null });

    const auth = await portalOf(scope, ann.participantId);
    expect((await portalMe(auth)).audience).toBe("REFERRER");
    expect((await reverseRewards(scope, reverseRewardsInput.parse({ referredUserEmail: dan, eventName: "chargeback", reason: "chargeback" }))).status).toBe(200);
    const me = await portalMe(auth);
    expect(me.referrals).toMatchObject({ total: 3, notCounted: 1 });
    const refs = await portalReferrals(auth, list);
    const byPerson = (email: string) => refs.data.find((r) => r.referred === `${email[0]}•••@example.com` && r.counted)!;
    expect(refs.data.find((r) => !r.counted)).toMatchObject({ status: "REJECTED", statusText: "Not counted: your own sign-up" });
    expect(byPerson(cy)).toMatchObject({ statusText: "Refunded", counted: true });
    expect(byPerson(cy).refundedEth).not.toBe("0");
    expect(byPerson(dan)).toMatchObject({ statusText: "Reversed (refunded or charged back)", reversedAt: expect.any(String) });
    expect(refs.data.map((r) => r.statusText)).toContain("Rewarded");

    const rewards = (await portalRewards(auth, list)).data;
    const commission = rewards.find((w) => w.kind === "COMMISSION" && w.forWhat.purchaseAmount === "120")!;
    expect(commission.forWhat).toEqual({ referred: expect.stringMatching(/^b•••@example\.com$/), eventName: "purchase", purchaseAmount: "120", purchaseCurrency: "USD", commissionPercent: "5" });
    expect(commission.description).toBe("Commission: 5 % of b•••@example.com's purchase of 120 USD");
    const referral = rewards.find((w) => w.kind === "REFERRAL")!;
    expect(referral.description).toMatch(/^Referral reward: .•••@example\.com joined \(purchase\)$/);
    const refunded = rewards.filter((w) => w.forWhat.purchaseAmount === "60");
    expect(refunded.length).toBeGreaterThan(0);
    expect(refunded.every((w) => w.statusText === "Reversed")).toBe(true);
    expect(JSON.stringify(rewards)).not.toContain(bo);

    // Earned per month = rewarded less reversed, the one totals rule: the months add up to earnedEth.
    const months = me.earningsByMonth;
    expect(months).toHaveLength(1);
    expect(months[0].earnedEth).toBe(me.earnings.earnedEth);
    expect(me.proof).toBeNull();
  });

  it("a referred customer's portal reads as a customer's; the queue groups customers without a wallet; bonusRequiresWallet grants them nothing", async () => {
    const { scope, businessId } = await domainBusiness({ referralRewardEth: "0.01", bonusEth: "0.002", fundEth: "10" });
    const ann = await upsertParticipant(scope, { userId: "ann2", email: uniqueEmail("ann"), walletAddress: "0x8ba1f109551bd432803012645ac136ddd64dba72" });
    const dee = uniqueEmail("dee");
    expect((await purchase(scope, dee, "10.00", ann.referralCode)).status).toBe(200);
    const deeRow = await db.participant.findFirstOrThrow({ where: { businessId, email: dee } });

    const auth = await portalOf(scope, deeRow.id);
    const me = await portalMe(auth);
    expect(me).toMatchObject({ audience: "CUSTOMER", wallet: { address: null }, earnings: { earnedEth: "0.002" } });
    const [bonus] = (await portalRewards(auth, list)).data;
    expect(bonus).toMatchObject({ kind: "BONUS", amountEth: "0.002", forWhat: { referred: null, eventName: "purchase" } });
    expect(bonus.description).toBe("Welcome bonus: you joined through a referral (purchase)");

    const queue = await payoutQueue(businessId, "TEST");
    expect(queue.customersWithoutWallet).toEqual({ count: 1, eth: "0.002" });
    expect(queue.items.find((i) => i.participant.participantId === deeRow.id)).toMatchObject({ state: "NO_WALLET", customer: true });
    expect(queue.items.find((i) => i.participant.participantId === ann.participantId)).toMatchObject({ customer: false });

    // With bonusRequiresWallet on (TEST only), the next customer without a wallet gets no bonus; one with a wallet does.
    const cfg = await updateGeneralConfig(businessId, updateGeneralInput.parse({ environment: "TEST", bonusRequiresWallet: true }));
    expect(cfg.general.bonusRequiresWallet).toBe(true);
    const eve = uniqueEmail("eve");
    expect((await purchase(scope, eve, "10.00", ann.referralCode)).status).toBe(200);
    const fay = uniqueEmail("fay");
    await upsertParticipant(scope, { email: fay, walletAddress: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" });
    expect((await purchase(scope, fay, "10.00", ann.referralCode)).status).toBe(200);
    const kinds = async (email: string) => (await db.reward.findMany({ where: { businessId, referral: { referred: { email } } }, orderBy: { kind: "asc" } })).map((r) => r.kind);
    expect(await kinds(eve)).toEqual(["REFERRAL"]);
    expect(await kinds(fay)).toEqual(["REFERRAL", "BONUS"]);
    expect((await updateGeneralConfig(businessId, updateGeneralInput.parse({ environment: "LIVE" }))).general.bonusRequiresWallet).toBe(false);
  });
});
