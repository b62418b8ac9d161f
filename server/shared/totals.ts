// The one definition of the money totals every view prints (docs/api.md, "Totals: one meaning
// each"): Overview, Referrals, participants, the portal, analytics and every export read these.
// - rewarded: the amount of every earned reward (status PAID: the pool was debited), reversed or not;
// - reversed: what reversals took back of them (whole rewards and refunded shares);
// - earned: rewarded − reversed;
// - a referral counts unless it is rejected (a self-referral, a blocked domain…);
// - revenue attributed: the amounts of processed events of referrals that are not rejected,
//   less what was refunded of them.
// SQL fragments take the table's alias, so that every query spells the rule the same way.

/** A referral that counts as one (a rejected one, e.g. a self-referral, never does). */
export const countsAsReferral = (status: string) => status !== "REJECTED";

/** A reward that counts as rewarded (the pool paid it). */
export const rewardedSql = (r: string) => `${r}."status" = 'PAID'`;

/** What one rewarded reward leaves earned: its amount less its reversals. */
export const earnedWeiSql = (r: string) => `(${r}."amountWei" - ${r}."reversedWei")`;

/** Earned from rewarded and reversed sums. */
export const earnedOf = (rewardedWei: bigint, reversedWei: bigint) => rewardedWei - reversedWei;

/** An event whose amount is revenue attributed: processed, of a referral (alias f) that is not rejected. */
export const revenueEventSql = (e: string, f: string) => `${e}."status" = 'PROCESSED' AND ${e}."amount" IS NOT NULL AND ${f}."status" <> 'REJECTED'`;

/** What an attributed event brought in: its amount less what was refunded of it. */
export const netRevenueSql = (e: string) => `(${e}."amount" - ${e}."refundedAmount")`;
