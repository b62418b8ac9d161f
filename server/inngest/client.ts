// The Inngest client. Used only when Inngest is configured (INNGEST_EVENT_KEY, or INNGEST_DEV
// with a dev server); otherwise the embedded runner executes jobs.
import { Inngest } from "inngest";

export const inngest = new Inngest({ id: "referral-tracking-service" });

/** Event names, one per job type; the event carries only the job id (the Job row holds the data). */
export const JOB_EVENTS = {
  EVENT_PROCESS: "rts/job.event-process",
  SDK_REFERRAL_APPLY: "rts/job.sdk-referral-apply",
  REWARD_PAYOUT: "rts/job.reward-payout",
  WEBHOOK_DELIVER: "rts/job.webhook-deliver",
  LIABILITY_PROOF: "rts/job.liability-proof",
  EMAIL_SEND: "rts/job.email-send",
} as const;
