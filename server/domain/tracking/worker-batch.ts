// A worker's batch of queued events and referral applies of one business+environment, decided
// in one transaction under the business's pool lock (the jobs layer, jobs/lanes.ts, owns the
// transaction and the job rows; this module owns the locks and the loop). Runs of the common
// shape go through the rules core set-based (event-batch.ts processEventRun); an item of another
// shape, or one that fails, runs alone through the caller's one-by-one path in a savepoint.
import type { Tx } from "../../db/client";
import type { Prisma } from "../../db/generated";
import type { Environment } from "../../shared/environment";
import { lockPool } from "../ledger/service";
import { readCommissionsAhead } from "../rules/state";
import { processEventRun, readRunInputs, type BatchItem, type RunInputs } from "./event-batch";

/**
 * A batch's place in its business+environment's line for the pool lock, within this process.
 * `wait` settles when the batch before has taken the lock (or ended); `done` (idempotent) is
 * called once this one has taken it (or ended). Batches of one runner then lock the pool in
 * arrival order, although each one opens its transaction, locks its job rows and reads its events
 * while the one before holds the lock: in the database's queue for a row lock, the first to ask
 * is the first served. Turns are taken in arrival order before anything runs, and a transaction
 * asks its connection of the pool before any later one, so a batch never waits for one behind it.
 */
export interface PoolTurn {
  wait: Promise<void>;
  done: () => void;
}
const turns = new Map<string, Promise<void>>();

export function takePoolTurn(businessId: string, environment: string): PoolTurn {
  const key = `${businessId}\u0000${environment}`;
  const wait = turns.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  turns.set(key, mine);
  void mine.then(() => {
    if (turns.get(key) === mine) turns.delete(key);
  });
  return { wait, done };
}

/**
 * A queued event run alone (a job outside a batch) takes its business's pool lock first, as a
 * batch does: one lock order (the pool, then the referrals') for every job, so jobs never
 * deadlock each other. A feed price is read before the lock (rules/state.ts readCommissionsAhead),
 * never under it.
 */
export async function startEventAlone(tx: Tx, scope: { businessId: string; environment: Environment }): Promise<void> {
  await readCommissionsAhead(tx, scope);
  await lockPool(tx, scope.businessId, scope.environment);
}

/** The set-based path's largest look-ahead, in events. */
const FAST_WINDOW = 1000;

export interface WorkerBatchOutcome {
  /** Items decided, with their job results, in order (a waiting one's result says `wait`). */
  succeeded: { key: string; result: Prisma.InputJsonObject }[];
  /** Items whose one-by-one run failed (rolled back alone). */
  failed: { key: string; error: unknown }[];
  /** Settles when the last run's writes are done: await it before the transaction goes on (statements on the direct channel may be sent behind it). */
  written: Promise<void>;
}

/**
 * Decides `items` (arrival order, one business and environment) in the caller's transaction: the
 * first run's rules and events are read while the batch before holds the pool lock; then, in the
 * business's turn, the pool lock is taken and held to the commit, so every reward of the batch
 * sees the debits of the ones before it. `runAlone` runs one item through its one-by-one path
 * (the job's handler), in a savepoint here: an item that fails rolls back alone.
 */
export async function decideWorkerBatch(
  tx: Tx,
  scope: { businessId: string; environment: Environment },
  items: BatchItem[],
  turn: PoolTurn,
  runAlone: (key: string) => Promise<Prisma.InputJsonObject>,
): Promise<WorkerBatchOutcome> {
  const { businessId, environment } = scope;
  const succeeded: WorkerBatchOutcome["succeeded"] = [];
  const failed: WorkerBatchOutcome["failed"] = [];
  // The first run's rules and events, read before the pool lock: while the batch ahead holds it.
  let inputs: RunInputs | undefined = items.length ? await readRunInputs(tx, businessId, environment, items.slice(0, FAST_WINDOW)) : undefined;
  await turn.wait;
  await lockPool(tx, businessId, environment);
  turn.done(); // the next batch of this business may now queue for the lock, behind this one
  // How far the set-based path reads ahead: a full window while it takes events, one event after
  // it stopped at once (e.g. a stretch of repeat events of known users, which it does not take),
  // so that such a stretch does not read a full window per event; it doubles again with every run
  // it takes whole.
  let window = FAST_WINDOW;
  // A run's statements may still be running when it answers (processEventRun's `written`): the
  // next run and the one-by-one path read what it wrote, so they wait for it; the last run's
  // writes overlap with what the caller sends behind them (the jobs' completion).
  let written: Promise<void> = Promise.resolve();
  for (let i = 0; i < items.length; ) {
    await written;
    // Set-based: the run of events of the common shape, decided together (event-batch.ts)…
    const run = await processEventRun(tx, businessId, environment, items.slice(i, i + window), inputs, true, true);
    inputs = undefined; // later runs read again: the one-by-one path may have changed the rules' rows (a first use creates them)
    written = run.written;
    succeeded.push(...run.done);
    i += run.next;
    window = run.slow ? Math.max(1, run.next) : Math.min(FAST_WINDOW, window * 2);
    if (!run.slow || i >= items.length) continue;
    // …and the next item of another shape through the one-by-one path, in its own savepoint.
    await written;
    const { key } = items[i++];
    await tx.$executeRawUnsafe(`SAVEPOINT rts_job`);
    try {
      const result = await runAlone(key);
      await tx.$executeRawUnsafe(`RELEASE SAVEPOINT rts_job`);
      succeeded.push({ key, result });
    } catch (e) {
      await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT rts_job`);
      failed.push({ key, error: e });
    }
  }
  return { succeeded, failed, written };
}
