// Where a reward stands, in one word every page, export and webhook uses (docs/api.md, "Reward
// states"). An earned reward (status PAID: the pool was debited for it) is ON_HOLD, PAYABLE,
// IN_PAYOUT or PAID_OUT, or REVERSED when it was taken back; a reward held for review or refused
// paid nothing.
import { z } from "zod";
import type { Prisma } from "../../db/client";

export const rewardState = z.enum(["HELD_FOR_REVIEW", "REFUSED", "ON_HOLD", "PAYABLE", "IN_PAYOUT", "PAID_OUT", "REVERSED"]);
export type RewardState = z.infer<typeof rewardState>;

export function rewardStateOf(r: { status: "PAID" | "HELD" | "REFUSED"; payoutStatus: RewardState | null; payableAt: Date | null }, now = new Date()): RewardState {
  if (r.status === "HELD") return "HELD_FOR_REVIEW";
  if (r.status === "REFUSED") return "REFUSED";
  // A hold that has ended reads PAYABLE even before the next payout run records it.
  if (r.payoutStatus === "ON_HOLD" && r.payableAt && r.payableAt <= now) return "PAYABLE";
  return r.payoutStatus ?? "PAYABLE";
}

/** Earned and not wholly reversed (what a partial refund reversed is its reversedWei, to subtract). */
export const earnedRewardWhere = { status: "PAID", OR: [{ payoutStatus: null }, { payoutStatus: { not: "REVERSED" } }] } satisfies Prisma.RewardWhereInput;
