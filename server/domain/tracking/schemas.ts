// POST /track and POST /track/batch: the tracked event and the two response shapes.
import { z } from "zod";
import { email, externalUserId, personName } from "../participants/schemas";
import { clickId } from "../referrals/schemas";
import { rewardSummaryOutput } from "../rewards/schemas";
import { eventNameSchema } from "../../shared/event-name";
import { amountProblem, currencyCode, decimalAmount, type Currency } from "../../shared/money";

const MAX_METADATA_BYTES = 8 * 1024;
const MAX_METADATA_DEPTH = 5;
const MAX_METADATA_KEYS = 100;

/** Nesting depth (the metadata object itself is level 1) and total key count, with an explicit stack. */
function depthAndKeys(root: unknown): { depth: number; keys: number } {
  let depth = 0;
  let keys = 0;
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    depth = Math.max(depth, d);
    if (d > MAX_METADATA_DEPTH) break; // already too deep: no need to look further
    if (!Array.isArray(v)) keys += Object.keys(v).length;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return { depth, keys };
}

/** Free-form, but bounded: ≤ 8 KB as JSON, ≤ 5 levels, ≤ 100 keys; the keys the pipeline reads are typed. */
const metadataSchema = z
  .record(z.string().max(100), z.unknown())
  .superRefine((m, ctx) => {
    const { depth, keys } = depthAndKeys(m);
    if (depth > MAX_METADATA_DEPTH) {
      // Checked first: serializing an arbitrarily deep value is what must not happen.
      ctx.addIssue({ code: "custom", message: `metadata may nest at most ${MAX_METADATA_DEPTH} levels` });
      return;
    }
    if (JSON.stringify(m).length > MAX_METADATA_BYTES) ctx.addIssue({ code: "custom", message: `metadata must be at most ${MAX_METADATA_BYTES} bytes as JSON` });
    if (keys > MAX_METADATA_KEYS) ctx.addIssue({ code: "custom", message: `metadata may have at most ${MAX_METADATA_KEYS} keys` });
  })
  .pipe(
    z.looseObject({
      referredUserEmail: email.optional(),
      referredUserId: externalUserId.optional(),
      referredUserName: personName.optional(),
      campaign: z.string().trim().min(1).max(100).optional(),
    }),
  );

/** amount and currency of an event: a currency needs an amount; an amount fits its currency's decimals (without one, the environment's defaultCurrency's, checked when it is read). */
export function checkEventMoney(v: { amount?: string; currency?: Currency }, ctx: z.RefinementCtx) {
  if (v.currency !== undefined && v.amount === undefined) ctx.addIssue({ code: "custom", path: ["currency"], message: "currency needs an amount" });
  if (v.amount !== undefined) {
    const problem = amountProblem(v.amount, v.currency ?? "ETH");
    if (problem) ctx.addIssue({ code: "custom", path: ["amount"], message: problem });
  }
}

/** The fields of a tracked event (trackInput without its cross-field check, for schemas that extend it). */
export const trackFields = z.strictObject({
  eventName: eventNameSchema,
  referrer: z.string().trim().min(1).max(64).optional(),
  metadata: metadataSchema.optional(),
  idempotencyKey: z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/, "Printable ASCII without spaces").optional(),
  source: z.string().trim().min(1).max(100).optional(),
  /** The link click that brought the referred user (rts_click); links the event's referral to it. */
  clickId: clickId.optional(),
  /** What the referred customer paid: a positive decimal string in `currency` (at most its decimals, e.g. "19.99" USD, ETH up to 18). */
  amount: decimalAmount.optional(),
  /** ETH or an ISO 4217 code (USD, EUR, GBP, JPY, CHF, CAD, AUD); default: the environment's defaultCurrency. */
  currency: currencyCode.optional(),
});
export const trackInput = trackFields.superRefine(checkEventMoney);
export type TrackInput = z.infer<typeof trackInput>;

const MAX_BATCH = 100;
export const trackBatchInput = z.strictObject({
  events: z.array(z.unknown()).min(1).max(MAX_BATCH, `At most ${MAX_BATCH} events per batch`),
});


const participantRef = z.object({ participantId: z.string(), referralCode: z.string() });

export const trackSyncOutput = z.object({
  success: z.literal(true),
  processedSynchronously: z.literal(true),
  queued: z.literal(false),
  eventId: z.string(),
  status: z.enum(["PROCESSED", "FLAGGED", "REJECTED"]),
  reason: z.string().nullable(),
  referralId: z.string().nullable(),
  referredParticipant: participantRef.nullable(),
  rewards: z.array(rewardSummaryOutput).optional(),
});
export type TrackSyncOutput = z.infer<typeof trackSyncOutput>;

export const EVENT_QUEUED_MESSAGE = "Event accepted for asynchronous processing";

export const trackQueuedOutput = z.object({
  success: z.literal(true),
  queued: z.literal(true),
  jobId: z.string(),
  jobType: z.literal("EVENT_PROCESS"),
  message: z.string(),
  eventId: z.string(),
});
export type TrackQueuedOutput = z.infer<typeof trackQueuedOutput>;

export type TrackOutput = TrackSyncOutput | TrackQueuedOutput;
