// Batched execution of claimed jobs: EVENT_PROCESS and SDK_REFERRAL_APPLY jobs of one
// business+environment run as one batch under one pool lock (executeEventBatch), other jobs alone
// (execute.ts), side by side in a few lanes; turns (Turn) keep a business's batches in arrival
// order, and let one decide and write its rows while the one before it finishes.
import { db, dbKind, txSql } from "../db/client";
import type { Job, Prisma } from "../db/generated";
import { env } from "../shared/env";
import { batchUnits } from "./batch-units";
import { lockPool } from "../domain/ledger/service";
import { processEventRun, readRunInputs, settled, type BatchItem, type RunInputs } from "../domain/tracking/event-batch";
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

/**
 * A unit's place in its business+environment's line, within this process: a business's batches
 * (and jobs run alone) go in arrival order. A batch starts once the unit before holds its ticket
 * (an advisory lock its transaction holds to its end) or ended; takes the locks of the people and
 * referrals it reads once the one before took its own (`locked`; rules/run.ts runAhead); and takes
 * the pool lock once the one before ended: it waits for that ticket in the database, so that any
 * wait between two batches is one the database sees (and breaks, were it ever a deadlock). While
 * it waits here, in the process, a batch holds nothing the one before needs: only its job rows
 * and its ticket. A job run alone starts once the unit before ended. Places are taken in arrival
 * order before anything runs.
 */
export interface Turn {
  /** The unit before: its ticket (null: it ended, or holds none), its locks taken, its end. */
  before: { ticket: Promise<string | null>; locked: Promise<void>; ended: Promise<void> };
  ticket: (key: string) => void;
  locked: () => void;
  /** Idempotent; also settles `ticket` (null) and `locked`. */
  done: () => void;
}
const places = new Map<string, Turn["before"]>();
const nothingBefore: Turn["before"] = { ticket: Promise.resolve(null), locked: Promise.resolve(), ended: Promise.resolve() };

function takeTurn(businessId: string, environment: string): Turn {
  const key = `${businessId}\u0000${environment}`;
  const before = places.get(key) ?? nothingBefore;
  const settle = <T>() => {
    let resolve!: (v: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    return { promise, resolve };
  };
  const ticket = settle<string | null>();
  const locked = settle<void>();
  const ended = settle<void>();
  const mine = { ticket: ticket.promise, locked: locked.promise, ended: ended.promise };
  places.set(key, mine);
  void mine.ended.then(() => {
    if (places.get(key) === mine) places.delete(key);
  });
  return {
    before,
    ticket: (k) => ticket.resolve(k),
    locked: () => locked.resolve(),
    done: () => {
      ticket.resolve(null);
      locked.resolve();
      ended.resolve();
    },
  };
}

/** A batch's ticket: an advisory lock its transaction holds to its end (Turn). */
const TICKET = `hashtext('rts-batch:' || $1)`;

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

/** The set-based path's largest look-ahead, in events. */
const FAST_WINDOW = 1000;

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
  const turnOf = new Map(units.map((unit) => [unit, BATCHED.has(unit[0].type) ? takeTurn(unit[0].businessId, unit[0].environment) : undefined]));
  let next = 0;
  const lane = async () => {
    while (next < units.length) {
      const unit = units[next++];
      const turn = turnOf.get(unit);
      let outcomes: Map<string, RunOutcome>;
      if (unit.length > 1) outcomes = await executeEventBatch(unit, turn);
      else {
        // A job run alone holds its turn until it ends (it takes the pool lock inside).
        await turn?.before.ended;
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
 * the same outcomes as one by one, in arrival order (runAt, createdAt). Runs of events and
 * applies are decided together and written set-based, a few statements per run
 * (domain/tracking/event-batch.ts); an item that fails (an unknown code, malformed metadata)
 * runs through its one-by-one handler in its own savepoint, so a job that fails rolls back alone and is then
 * retried or failed exactly as it would be alone. The pool row is locked once: on PostgreSQL after
 * the first run's rows are written and before its debits (rules/run.ts runAhead: decided ahead,
 * checked under the lock), elsewhere first. Batches (and single jobs paying rewards) of one
 * business take it in turn, and every reward of the batch sees the debits of the ones before it. Ownership of every job is checked under its row lock in one statement,
 * and the jobs that succeeded are marked SUCCEEDED in one statement of the same transaction as
 * their effects: a crash before the commit leaves nothing, and the jobs are taken again when
 * their lease expires (exactly once, across crashes and workers). If the batch transaction
 * itself fails (e.g. a deadlock with a single-path transaction), nothing of it committed and
 * its jobs run one by one.
 */
export async function executeEventBatch(jobs: Job[], turn?: Turn): Promise<Map<string, RunOutcome>> {
  const ordered = [...jobs].sort(arrival);
  const { businessId, environment } = ordered[0];
  turn ??= takeTurn(businessId, environment);
  try {
    if (ordered.some((j) => !BATCHED.has(j.type) || j.businessId !== businessId || j.environment !== environment)) {
      throw new Error("executeEventBatch: jobs must be EVENT_PROCESS or SDK_REFERRAL_APPLY jobs of one business and environment");
    }
    return await executeEventBatchInTurn(ordered, turn);
  } finally {
    turn.done();
  }
}

async function executeEventBatchInTurn(ordered: Job[], turn: Turn): Promise<Map<string, RunOutcome>> {
  const { businessId, environment } = ordered[0];
  const out = new Map<string, RunOutcome>();
  const failed: { job: Job; error: unknown }[] = [];
  let succeeded: { job: Job; result: Prisma.InputJsonObject }[] = [];
  // The unit before holds its ticket (or ended): this one may start (Turn).
  const before = await turn.before.ticket;
  const ticket = ordered[0].id;
  try {
    await db.$transaction(
      async (tx) => {
        failed.length = 0;
        succeeded = [];
        await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(${TICKET})::text AS t`, ticket);
        turn.ticket(ticket);
        const rows = await tx.$queryRawUnsafe<{ id: string; lockedBy: string | null; status: string }[]>(
          `SELECT id, "lockedBy", status::text AS status FROM "Job" WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
          ordered.map((j) => j.id),
        );
        const owned = new Set(rows.filter((r) => r.status === "RUNNING" && r.lockedBy === ordered.find((j) => j.id === r.id)?.lockedBy).map((r) => r.id));
        const mine = ordered.filter((j) => owned.has(j.id));
        const byId = new Map(mine.map((j) => [j.id, j]));
        // The first run's rules and events, read while the batch ahead works.
        let inputs: RunInputs | undefined = mine.length ? await readRunInputs(tx, businessId, environment, mine.slice(0, FAST_WINDOW).map(eventItemOf)) : undefined;
        // The pool lock, once the unit before ended (its ticket is free then): in the business's turn.
        let inTurn: Promise<void> | undefined;
        let pool: Promise<void> | undefined;
        const turnCame = () => (inTurn ??= before ? tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock_shared(${TICKET})::text AS t`, before).then(() => undefined) : Promise.resolve());
        const takePool = () =>
          (pool ??= (async () => {
            await turnCame();
            await lockPool(tx, businessId, environment);
          })());
        // On PostgreSQL the first run is decided ahead of the pool lock (rules/run.ts runAhead), so
        // that this batch writes its rows while the one before finishes: it takes the locks of the
        // people and referrals it reads once the one before took its own. One connection (PGlite)
        // runs one transaction at a time: there the run takes the pool lock first.
        // Its jobs are marked done while it waits for its turn (undone if it is decided again).
        const mark = async (done: { key: string; result: Prisma.InputJsonObject }[]) =>
          markSucceeded(await txSql(tx), done.filter((d) => !isWaiting(d.result)).map((d) => ({ id: d.key, result: d.result })));
        let beforeEnded = false;
        void turn.before.ended.then(() => (beforeEnded = true));
        const ahead = dbKind() === "postgres" ? { turn: turnCame, beforeEnded: () => beforeEnded, takePool, mark } : undefined;
        const marked = new Set<string>();
        await turn.before.locked;
        if (!ahead) await takePool();
        // How far the set-based path reads ahead: a full window while it takes events, one event
        // after it stopped at once (e.g. a stretch of repeat events of known users, which it does
        // not take), so that such a stretch does not read a full window per event; it doubles again
        // with every run it takes whole.
        let window = FAST_WINDOW;
        // A run's statements may still be running when it answers (processEventRun's `written`):
        // the next run and the one-by-one handler read what it wrote, so they wait for it; the
        // last run's writes overlap with the jobs' completion, queued behind them.
        let written: Promise<void> = Promise.resolve();
        for (let i = 0; i < mine.length; ) {
          await written;
          // Set-based: the run of events of the common shape, decided together (event-batch.ts)…
          // The next batch takes its locks once this one took its last: after a run decided
          // ahead that decides every job left (else at the end).
          const whole = window >= mine.length - i;
          const run = await processEventRun(tx, businessId, environment, mine.slice(i, i + window).map(eventItemOf), inputs, true, true, pool || !ahead ? undefined : { ...ahead, locked: whole ? turn.locked : () => undefined });
          if (!pool) await run.written; // (a run that decided nothing): nothing may use the transaction before its writes are done
          await takePool(); // held from here on: taken by a run decided ahead, else now
          inputs = undefined; // later runs read again: the one-by-one handler may have changed the rules' rows (a first use creates them)
          written = run.written;
          for (const d of run.done) succeeded.push({ job: byId.get(d.key)!, result: d.result });
          if (run.marked) for (const d of run.done) marked.add(d.key);
          i += run.next;
          window = run.slow ? Math.max(1, run.next) : Math.min(FAST_WINDOW, window * 2);
          if (!run.slow || i >= mine.length) continue;
          // …and the next event of another shape through the one-by-one handler, in its own savepoint.
          await written;
          const job = mine[i++];
          await tx.$executeRawUnsafe(`SAVEPOINT rts_job`);
          try {
            const result = await handlers[job.type].run(tx, job);
            await tx.$executeRawUnsafe(`RELEASE SAVEPOINT rts_job`);
            succeeded.push({ job, result });
          } catch (e) {
            await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT rts_job`);
            failed.push({ job, error: e });
          }
        }
        // Events that wait for a price (PRICE_UNAVAILABLE): their jobs run again later.
        const waiting = succeeded.filter((s) => isWaiting(s.result));
        if (waiting.length) {
          await written;
          await deferJobs(tx, waiting.map((s) => s.job));
          succeeded = succeeded.filter((s) => !isWaiting(s.result));
          for (const s of waiting) out.set(s.job.id, { status: "RETRY", error: "PRICE_UNAVAILABLE", runAt: new Date(Date.now() + WAIT_RETRY_MS) });
        }
        let completed: Promise<unknown> = Promise.resolve();
        const unmarked = succeeded.filter((s) => !marked.has(s.job.id));
        if (unmarked.length) {
          completed = markSucceeded(await txSql(tx), unmarked.map((s) => ({ id: s.job.id, result: s.result })));
          completed.catch(() => undefined); // answered just below, after the run's writes
        }
        await settled([written, completed]);
        turn.locked(); // every lock of the batch is taken (what follows its transaction, e.g. recording failures, must not hold the next one up)
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
