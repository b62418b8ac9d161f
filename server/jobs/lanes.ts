// Batched execution of claimed jobs: EVENT_PROCESS and SDK_REFERRAL_APPLY jobs of one
// business+environment run as one batch under one pool lock (executeEventBatch), other jobs alone
// (execute.ts), side by side in a few lanes; a business's batches lock its pool in arrival order
// (domain/tracking/worker-batch.ts takePoolTurn).
import { db, dbKind, txSql } from "../db/client";
import type { Job, Prisma } from "../db/generated";
import { env } from "../shared/env";
import { batchUnits } from "./batch-units";
import { settled, type BatchItem } from "../domain/tracking/event-batch";
import { decideWorkerBatch, takePoolTurn, type PoolTurn } from "../domain/tracking/worker-batch";
import { claimJob } from "./claim";
import { deferJobs, executeClaimedJob, failExhausted, isWaiting, leaseExhausted, markSucceeded, recordFailure, runJob, WAIT_RETRY_MS, type RunOutcome } from "./execute";
import { handlers } from "./handlers";
import { applyJobOf, applyReferralInput } from "../domain/referrals/schemas";

/**
 * runJob for several jobs at once (Inngest's batched EVENT_PROCESS function): the due ones are
 * claimed and executed together (executeClaimedJobs: events of one business as one batch); the
 * others answer as runJob would (stored outcome, NOT_DUE, BUSY).
 */
export async function runJobs(jobIds: string[]): Promise<Map<string, RunOutcome>> {
  const ids = [...new Set(jobIds)];
  const claimed: Job[] = [];
  for (const id of ids) {
    const j = await claimJob(id);
    if (j) claimed.push(j);
  }
  const out = claimed.length ? await executeClaimedJobs(claimed) : new Map<string, RunOutcome>();
  for (const id of ids) if (!out.has(id)) out.set(id, await runJob(id));
  return out;
}

/** The job types a batch takes: the rules core decides them together, in arrival order. */
const BATCHED: ReadonlySet<Job["type"]> = new Set(["EVENT_PROCESS", "SDK_REFERRAL_APPLY"]);

const eventItemOf = (job: Job): BatchItem => {
  if (job.type === "SDK_REFERRAL_APPLY") {
    // An input the handler would refuse matches no event either: the run stops there and the handler answers its error alone.
    const apply = applyJobOf(job.payload);
    const input = applyReferralInput.safeParse(apply.input);
    return { key: job.id, eventId: "", apiKeyId: job.apiKeyId, apply: input.success ? input.data : undefined, untrusted: apply.untrusted };
  }
  const id = (job.payload as { eventId?: unknown } | null)?.eventId;
  // A payload without an event id matches no event: the one-by-one handler then answers its error.
  return { key: job.id, eventId: typeof id === "string" ? id : "", apiKeyId: job.apiKeyId };
};

const arrival = (a: Job, b: Job) => a.runAt.getTime() - b.runAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Executes claimed jobs. EVENT_PROCESS and SDK_REFERRAL_APPLY jobs of one business and
 * environment run as one batch (executeEventBatch); other jobs, and a batch of one, run alone (executeClaimedJob). Batches of
 * different businesses run side by side, at most `parallel` at a time.
 */
export async function executeClaimedJobs(claimed: Job[], parallel = 4): Promise<Map<string, RunOutcome>> {
  const out = new Map<string, RunOutcome>();
  // Jobs whose every attempt ended with its process are failed, not run with the others again.
  for (const job of claimed.filter(leaseExhausted)) out.set(job.id, await failExhausted(job));
  const jobs = claimed.filter((j) => !leaseExhausted(j));
  const units: Job[][] = [];
  const groups = new Map<string, Job[]>();
  for (const job of jobs) {
    if (!BATCHED.has(job.type)) {
      units.push([job]);
      continue;
    }
    const key = `${job.businessId}\u0000${job.environment}`;
    const g = groups.get(key);
    if (g) g.push(job);
    else groups.set(key, [job]);
  }
  // A batch transaction holds the business's pool lock until it commits: bounded in size, so
  // that synchronous requests of that business wait little and a batch ends well within its lease.
  const txSize = env.jobBatchTxSize ?? (dbKind() === "postgres" ? 1000 : 500);
  for (const g of groups.values()) {
    g.sort(arrival);
    units.push(...batchUnits(g, txSize));
  }
  // Turns on the pool lock, taken now, in arrival order: a business's batches lock its pool in
  // that order, whatever lane runs them and whenever it gets there (also across claims).
  const turnOf = new Map(units.map((unit) => [unit, BATCHED.has(unit[0].type) ? takePoolTurn(unit[0].businessId, unit[0].environment) : undefined]));
  let next = 0;
  const lane = async () => {
    while (next < units.length) {
      const unit = units[next++];
      const turn = turnOf.get(unit);
      let outcomes: Map<string, RunOutcome>;
      if (unit.length > 1) outcomes = await executeEventBatch(unit, turn);
      else {
        // A job run alone holds its turn until it ends (it takes the pool lock inside).
        await turn?.wait;
        try {
          outcomes = new Map([[unit[0].id, await executeClaimedJob(unit[0])]]);
        } finally {
          turn?.done();
        }
      }
      for (const [id, o] of outcomes) out.set(id, o);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, units.length)) }, lane));
  } finally {
    // A lane that crashed leaves units it never ran: their turns must not hold later batches up.
    for (const turn of turnOf.values()) turn?.done();
  }
  return out;
}


/**
 * EVENT_PROCESS and SDK_REFERRAL_APPLY jobs of one business+environment in one transaction, with
 * the same outcomes as one by one, in arrival order (runAt, createdAt): the domain decides them
 * under the business's pool lock, taken in its turn (domain/tracking/worker-batch.ts); an item
 * that fails runs through its one-by-one handler in its own savepoint, so a job that fails rolls
 * back alone and is then retried or failed exactly as it would be alone. Ownership of every job
 * is checked under its row lock in one statement, and the jobs that succeeded are marked
 * SUCCEEDED in one statement of the same transaction as their effects: a crash before the commit
 * leaves nothing, and the jobs are taken again when their lease expires (exactly once, across
 * crashes and workers). If the batch transaction itself fails (e.g. a deadlock with a
 * single-path transaction), nothing of it committed and its jobs run one by one.
 */
export async function executeEventBatch(jobs: Job[], turn?: PoolTurn): Promise<Map<string, RunOutcome>> {
  const ordered = [...jobs].sort(arrival);
  const { businessId, environment } = ordered[0];
  turn ??= takePoolTurn(businessId, environment);
  try {
    if (ordered.some((j) => !BATCHED.has(j.type) || j.businessId !== businessId || j.environment !== environment)) {
      throw new Error("executeEventBatch: jobs must be EVENT_PROCESS or SDK_REFERRAL_APPLY jobs of one business and environment");
    }
    return await executeEventBatchInTurn(ordered, turn);
  } finally {
    turn.done();
  }
}

async function executeEventBatchInTurn(ordered: Job[], turn: PoolTurn): Promise<Map<string, RunOutcome>> {
  const { businessId, environment } = ordered[0];
  const out = new Map<string, RunOutcome>();
  let failed: { job: Job; error: unknown }[] = [];
  let succeeded: { job: Job; result: Prisma.InputJsonObject }[] = [];
  try {
    await db.$transaction(
      async (tx) => {
        const rows = await tx.$queryRawUnsafe<{ id: string; lockedBy: string | null; status: string }[]>(
          `SELECT id, "lockedBy", status::text AS status FROM "Job" WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
          ordered.map((j) => j.id),
        );
        const owned = new Set(rows.filter((r) => r.status === "RUNNING" && r.lockedBy === ordered.find((j) => j.id === r.id)?.lockedBy).map((r) => r.id));
        const mine = ordered.filter((j) => owned.has(j.id));
        const byId = new Map(mine.map((j) => [j.id, j]));
        const batch = await decideWorkerBatch(tx, { businessId, environment }, mine.map(eventItemOf), turn, (id) => handlers[byId.get(id)!.type].run(tx, byId.get(id)!));
        const { written } = batch;
        failed = batch.failed.map((f) => ({ job: byId.get(f.key)!, error: f.error }));
        succeeded = batch.succeeded.map((s) => ({ job: byId.get(s.key)!, result: s.result }));
        // Events that wait for a price (PRICE_UNAVAILABLE): their jobs run again later.
        const waiting = succeeded.filter((s) => isWaiting(s.result));
        if (waiting.length) {
          await written;
          await deferJobs(tx, waiting.map((s) => s.job));
          succeeded = succeeded.filter((s) => !isWaiting(s.result));
          for (const s of waiting) out.set(s.job.id, { status: "RETRY", error: "PRICE_UNAVAILABLE", runAt: new Date(Date.now() + WAIT_RETRY_MS) });
        }
        let completed: Promise<unknown> = Promise.resolve();
        if (succeeded.length) {
          completed = markSucceeded(await txSql(tx), succeeded.map((s) => ({ id: s.job.id, result: s.result })));
          completed.catch(() => undefined); // answered just below, after the run's writes
        }
        await settled([written, completed]);
        for (const job of ordered) if (!owned.has(job.id)) out.set(job.id, { status: "BUSY" });
      },
      // The job rows stay locked until the commit, so a lease expiring meanwhile lets no other
      // runner take them (claims skip locked rows): the batch may outlive its lease.
      { timeout: Math.max(120_000, 2 * env.jobLeaseMs) },
    );
  } catch (e) {
    console.warn(`[jobs] batch of ${ordered.length} jobs failed as a whole (${(e as Error).message.replace(/\s+/g, " ").slice(-300)}); running them one by one`);
    turn.done(); // its jobs run one by one now, in transactions of their own: the next batch need not wait for them
    for (const job of ordered) out.set(job.id, await executeClaimedJob(job));
    return out;
  }
  for (const s of succeeded) out.set(s.job.id, { status: "SUCCEEDED", result: s.result });
  for (const f of failed) out.set(f.job.id, await recordFailure(f.job, f.error));
  return out;
}
