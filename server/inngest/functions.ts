// Inngest functions, one per job type. Each calls runJob, the same code path the embedded
// runner uses, so both executors do identical work with the same exactly-once guarantees.
import { NonRetriableError } from "inngest";
import { env } from "../shared/env";
import { runJob, type RunOutcome } from "../jobs/execute";
import { inngest, JOB_EVENTS } from "./client";

async function execute(jobId: unknown): Promise<RunOutcome> {
  if (typeof jobId !== "string" || !jobId) throw new NonRetriableError("event.data.jobId is required");
  const outcome = await runJob(jobId);
  // RETRY / BUSY: throw so that Inngest retries with its own backoff.
  if (outcome.status === "RETRY") throw new Error(outcome.error);
  if (outcome.status === "BUSY") throw new Error(`job ${jobId} is running elsewhere or not due yet`);
  return outcome;
}

const retries = Math.min(20, Math.max(0, env.jobMaxAttempts - 1)) as 0;

export const eventProcessFunction = inngest.createFunction(
  { id: "event-process", name: "EVENT_PROCESS", retries, triggers: [{ event: JOB_EVENTS.EVENT_PROCESS }] },
  async ({ event, step }) => step.run("process-event", () => execute(event.data?.jobId)),
);

export const sdkReferralApplyFunction = inngest.createFunction(
  { id: "sdk-referral-apply", name: "SDK_REFERRAL_APPLY", retries, triggers: [{ event: JOB_EVENTS.SDK_REFERRAL_APPLY }] },
  async ({ event, step }) => step.run("apply-referral", () => execute(event.data?.jobId)),
);

export const functions = [eventProcessFunction, sdkReferralApplyFunction];
