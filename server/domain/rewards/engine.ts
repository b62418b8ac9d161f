// PLACEHOLDER owned by the rewards work (issue 4): replaced by the real reward engine.
// Contract between the SDK pipeline and the reward engine: after the pipeline has recorded the
// event's referral (if any), it calls settleEvent inside the same transaction and stores the
// returned status/reason on the event.
import type { Tx } from "../../db/client";
import type { Referral, TrackedEvent } from "../../db/generated";

export interface RewardSummary {
  rewardId: string;
  participantId: string;
  kind: "REFERRAL" | "BONUS" | "MANUAL";
  amountEth: string;
  requestedEth: string;
  status: "PAID" | "HELD" | "REFUSED";
  reason: string | null;
}

export interface SettleResult {
  status: "PROCESSED" | "FLAGGED" | "REJECTED";
  reason?: string;
  rewards: RewardSummary[];
}

export async function settleEvent(_tx: Tx, _input: { event: TrackedEvent; referral: Referral | null }): Promise<SettleResult> {
  return { status: "PROCESSED", rewards: [] };
}
