// PLACEHOLDER owned by the rewards work (issue 4): replaced by the real anti-abuse rules.
// Contract between the SDK pipeline and the reward engine: the pipeline calls this when it is
// about to record a referral, inside its transaction.
import type { Tx } from "../../db/client";
import type { Participant } from "../../db/generated";

export interface ScreenReferralInput {
  businessId: string;
  environment: "TEST" | "LIVE";
  referrer: Participant;
  referred: Participant;
  now: Date;
}

export interface ScreenResult {
  status: "PENDING" | "FLAGGED" | "REJECTED";
  /** Machine-readable reason when FLAGGED or REJECTED, e.g. SELF_REFERRAL, BLOCKED_EMAIL_DOMAIN. */
  reason?: string;
}

export async function screenReferral(_tx: Tx, _input: ScreenReferralInput): Promise<ScreenResult> {
  return { status: "PENDING" };
}
