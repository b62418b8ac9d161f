// Referral bookkeeping: record referrer → referred (screened by the anti-abuse rules, never two
// rows for the same pair), apply a referral code (synchronously or as an SDK_REFERRAL_APPLY
// job), and list the referrals created through one API key, newest first, by cursor.
import { db, type Tx } from "../../db/client";
import type { Participant, Referral } from "../../db/generated";
import { AppError } from "../../shared/errors";
import { applyView, runOne } from "../rules/run";
import { applyItem, type ApplyInput } from "../rules/state";
import type { Scope } from "../../shared/scope";
import { claimIdempotencyKey, completeIdempotencyKey, requestHash } from "../../shared/idempotency";
import { dispatchJobs, insertJob, type QueuedJob } from "../jobs/queue";
import { applyJobPayload, type ApplyQueuedOutput, type ApplyReferralInput, type ApplySyncOutput, type ReferralListOutput, type ReferralOutput } from "./schemas";
import { fillVisitorClicks, type Visitor } from "../links/visitor-click";

export interface RecordReferralInput {
  referrer: Participant;
  referred: Participant;
  source?: string | null;
  campaign?: string | null;
}

/** An apply through the rules core (a batch of one): the referrer by code or handle, the referred user found or created, the referral. */
async function applyThroughRules(tx: Tx, scope: Scope, a: ApplyInput) {
  const o = await runOne(tx, scope, applyItem("apply", a, scope.apiKeyId ?? null, scope.untrusted === true));
  if (o.kind === "error") throw o.error;
  if (o.kind !== "apply") throw new Error("apply: not an apply outcome");
  return o;
}

/**
 * The referral between these two participants: the existing one, or a new one whose initial
 * status comes from the anti-abuse screen. The unique (referrerId, referredId) makes a
 * concurrent duplicate a retry that finds the first one.
 */
export async function recordReferral(tx: Tx, scope: Scope, input: RecordReferralInput): Promise<{ referral: Referral; created: boolean }> {
  const o = await applyThroughRules(tx, scope, { referralCode: input.referrer.referralCode, referredUserEmail: input.referred.email, referredUserId: input.referred.externalId, source: input.source, campaign: input.campaign });
  return { referral: o.referral, created: o.created };
}

const REFERRAL_QUEUED_MESSAGE = "Referral apply accepted for asynchronous processing";

/** The work of an apply, shared by the synchronous path and the SDK_REFERRAL_APPLY job. */
export async function performReferralApply(tx: Tx, scope: Scope, input: Omit<ApplyReferralInput, "idempotencyKey">): Promise<ApplySyncOutput> {
  return { success: true, processedSynchronously: true, queued: false, ...applyView(await applyThroughRules(tx, scope, input)) };
}

/**
 * POST /sdk/referrals/apply. `referredUserId` present → processed now; only
 * `referredUserEmail` → queued as SDK_REFERRAL_APPLY (the job row commits with the claim).
 */
export async function applyReferral(scope: Scope, input: ApplyReferralInput, visitor?: Visitor): Promise<{ status: number; body: ApplySyncOutput | ApplyQueuedOutput }> {
  const { idempotencyKey, ...work } = input;
  const sync = work.referredUserId !== undefined;
  const route = "POST /sdk/referrals/apply";
  // Hashed as sent: a retry matches its first request whatever the visitor clicked meanwhile.
  const hash = idempotencyKey ? requestHash(route, work) : "";
  await fillVisitorClicks(scope, visitor, [work], (w) => w.referralCode);
  let queuedJob: QueuedJob | undefined;
  const out = await db.$transaction(async (tx) => {
    const claim = idempotencyKey ? await claimIdempotencyKey(tx, scope, idempotencyKey, route, hash) : undefined;
    if (claim?.replay) return claim.replay as { status: number; body: ApplySyncOutput | ApplyQueuedOutput };
    let res: { status: number; body: ApplySyncOutput | ApplyQueuedOutput };
    if (sync) {
      res = { status: 200, body: await performReferralApply(tx, scope, work) };
    } else {
      const job = await insertJob(tx, scope, "SDK_REFERRAL_APPLY", applyJobPayload(work, scope.untrusted === true));
      queuedJob = job;
      res = { status: 202, body: { success: true, queued: true, jobId: job.id, jobType: "SDK_REFERRAL_APPLY", message: REFERRAL_QUEUED_MESSAGE } };
    }
    if (claim?.recordId) await completeIdempotencyKey(tx, claim.recordId, res.status, res.body);
    return res;
  });
  if (queuedJob) dispatchJobs([queuedJob]);
  return out;
}

// ───────────── Lists ─────────────

type Row = Referral & { referrer: Participant; referred: Participant };

const participantView = (p: Participant) => ({ participantId: p.id, referralCode: p.referralCode, handle: p.handle, userId: p.externalId, email: p.email });

function toReferralOutput(r: Row): ReferralOutput {
  return {
    referralId: r.id,
    status: r.status,
    reason: r.reason,
    environment: r.environment,
    apiKeyId: r.apiKeyId,
    source: r.source,
    campaign: r.campaign,
    referrer: participantView(r.referrer),
    referred: participantView(r.referred),
    createdAt: r.createdAt.toISOString(),
    qualifiedAt: r.qualifiedAt ? r.qualifiedAt.toISOString() : null,
  };
}

/** Opaque cursor: the (createdAt, id) of the last row of the page. */
function encodeCursor(r: { createdAt: Date; id: string }) {
  return Buffer.from(`${r.createdAt.getTime()}:${r.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const raw = Buffer.from(cursor, "base64url").toString("utf8");
  const m = /^(\d{1,15}):([A-Za-z0-9_-]{1,64})$/.exec(raw);
  if (!m || Buffer.from(raw).toString("base64url") !== cursor) {
    throw new AppError("VALIDATION_ERROR", "Invalid cursor", [{ path: "cursor", message: "Use the nextCursor of a previous page" }]);
  }
  return { createdAt: new Date(Number(m[1])), id: m[2] };
}

/** Referrals created through this API key (the id survives rotation), newest first. */
export async function listReferralsForApiKey(apiKeyId: string, q: { limit: number; cursor?: string }): Promise<ReferralListOutput> {
  const after = q.cursor ? decodeCursor(q.cursor) : undefined;
  const rows = await db.referral.findMany({
    where: {
      apiKeyId,
      ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: q.limit + 1,
    include: { referrer: true, referred: true },
  });
  const page = rows.slice(0, q.limit);
  return { data: page.map(toReferralOutput), nextCursor: rows.length > q.limit ? encodeCursor(page[page.length - 1]) : null };
}
