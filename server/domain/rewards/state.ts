// Where a reward stands, in one word every page, export and webhook uses (docs/api.md, "Reward
// states"). An earned reward (status PAID: the pool was debited for it) is ON_HOLD, PAYABLE,
// IN_PAYOUT or PAID_OUT, or REVERSED when it was taken back; a reward held for review or refused
// paid nothing.
import { z } from "zod";
import type { Prisma } from "../../db/client";

export const rewardState = z.enum(["HELD_FOR_REVIEW", "REFUSED", "ON_HOLD", "PAYABLE", "IN_PAYOUT", "PAID_OUT", "REVERSED"]);
export type RewardState = z.infer<typeof rewardState>;

type PayoutFields = { payoutStatus: RewardState | null; payableAt: Date | null };

/**
 * Payable now: PAYABLE, or ON_HOLD with its hold over. A hold that has ended reads PAYABLE even
 * before the next payout run records it (releaseHolds). The same rule for queries:
 * payableNowWhere, holdOverWhere and payableNowSql.
 */
export const payableNow = (r: PayoutFields, now: Date) => r.payoutStatus === "PAYABLE" || (r.payoutStatus === "ON_HOLD" && !!r.payableAt && r.payableAt <= now);

/** ON_HOLD rewards whose hold is over by `now` (payableNow's second leg). */
export const holdOverWhere = (now: Date) => ({ payoutStatus: "ON_HOLD", payableAt: { lte: now } }) satisfies Prisma.RewardWhereInput;

/** payableNow as a Prisma filter. */
export const payableNowWhere = (now: Date) => ({ OR: [{ payoutStatus: "PAYABLE" }, holdOverWhere(now)] }) satisfies Prisma.RewardWhereInput;

/** payableNow in hand-written SQL: `r` the Reward row's alias, `now` the parameter that holds the time. */
export const payableNowSql = (r: string, now: string) => `(${r}."payoutStatus" = 'PAYABLE' OR (${r}."payoutStatus" = 'ON_HOLD' AND ${r}."payableAt" <= ${now}))`;

export function rewardStateOf(r: { status: "PAID" | "HELD" | "REFUSED" } & PayoutFields, now = new Date()): RewardState {
  if (r.status === "HELD") return "HELD_FOR_REVIEW";
  if (r.status === "REFUSED") return "REFUSED";
  if (payableNow(r, now)) return "PAYABLE";
  return r.payoutStatus ?? "PAYABLE";
}

/** Earned and not wholly reversed (what a partial refund reversed is its reversedWei, to subtract). */
export const earnedRewardWhere = { status: "PAID", OR: [{ payoutStatus: null }, { payoutStatus: { not: "REVERSED" } }] } satisfies Prisma.RewardWhereInput;
