// Rules of one line that many readers share (the rules core, the tiers page, the portal, the
// analytics and the commission simulation), named once so that they cannot drift: which
// referral statuses count as qualified, and which tier a count of qualified referrals reaches.

/** A referral that qualified: an event settled it (QUALIFIED), and maybe paid it (REWARDED). */
export const QUALIFIED_STATUSES = ["QUALIFIED", "REWARDED"] as const;

export const isQualified = (status: string): status is (typeof QUALIFIED_STATUSES)[number] => (QUALIFIED_STATUSES as readonly string[]).includes(status);

/** QUALIFIED_STATUSES as a SQL list, for `status IN (…)` in hand-written statements. */
export const QUALIFIED_SQL = QUALIFIED_STATUSES.map((s) => `'${s}'`).join(", ");

/** The tier a referrer with `count` qualified referrals reaches: the one with the highest minReferrals at most `count`, or null. Tiers in any order. */
export function tierFor<T extends { minReferrals: number }>(tiers: readonly T[], count: number): T | null {
  let best: T | null = null;
  for (const t of tiers) if (t.minReferrals <= count && (best === null || t.minReferrals > best.minReferrals)) best = t;
  return best;
}
