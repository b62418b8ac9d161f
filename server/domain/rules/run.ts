// The one way into the rules core: load the state for some items, decide, write. The worker's
// batches call runRules for a run of queued events (the pool already locked, or taken once the
// run's other rows are written: runAhead); every single path
// (synchronous /track, the dashboard's event, SDK_REFERRAL_APPLY, settleEvent) calls runOne, a
// batch of one in a savepoint, retried when a concurrent request created the same participant
// or referral meanwhile.
import { isDeepStrictEqual } from "node:util";
import type { Tx } from "../../db/client";
import { isForeignKeyViolation, isUniqueViolation } from "../../db/unique-violation";
import { newId } from "../../shared/ids";
import { generateReferralCode } from "../participants/service";
import { decide, decideInSteps, NeedsMoney, reversalOf, type Decisions, type Outcome, type RuleItem, type RulesState } from "./decide";
import { loadMoney, loadState, reloadGuarded, type LoadedRules, type RulesScope } from "./state";
import { RowsClashed, settled, writeDecisions, type Written } from "./write";

const ids = { newId, newCode: generateReferralCode };

export interface RunOptions {
  /** The business's rules, when the caller read them already. */
  rules?: LoadedRules | null;
  /** The caller holds the pool lock: read the money with the rest. */
  poolLocked?: boolean;
  /** Stop before an item that fails instead of answering its error. */
  haltOnError?: boolean;
  /** Keep the webhook events in one fan-out job instead of writing their messages (rules/write.ts). */
  deferWebhooks?: boolean;
  /** The caller does not hold the pool lock yet: decide ahead of it (runAhead). */
  ahead?: AheadOptions;
}

export interface AheadOptions {
  /** The run's locks are taken and its new participants written, and it decides every item left to the caller: a later batch of the business may take its own. Idempotent. */
  locked: () => void;
  /** Settles once the business's batch before this one ended (its turn). Idempotent. */
  turn: () => Promise<void>;
  /** The business's batch before this one has ended (or there is none). */
  beforeEnded: () => boolean;
  /** Takes the pool lock, in the business's turn. Idempotent. */
  takePool: () => Promise<void>;
  /** The run's rows but the debits are sent: a statement of the caller's to send behind them (the jobs' marks), rolled back with them if the run is decided again. */
  sent?: (outcomes: Outcome[]) => Promise<unknown>;
}

type Run = Written & { decisions: Decisions; state: RulesState; /** Decided ahead of the pool lock and kept (runAhead). */ keptAhead?: true };

export async function runRules(tx: Tx, scope: RulesScope, items: readonly RuleItem[], opts: RunOptions = {}): Promise<Run> {
  if (opts.ahead) {
    const run = await runAhead(tx, scope, items, opts, opts.ahead);
    if (run) return run;
    // What it decided no longer held under the lock, or its rows clashed with another
    // transaction's: decided again, under the pool lock it now holds.
    return runRules(tx, scope, items, { ...opts, ahead: undefined, poolLocked: true });
  }
  const now = new Date();
  const state = await loadState(tx, scope, items, now, { rules: opts.rules, money: opts.poolLocked ? "locked" : "later" });
  const options = { ...ids, haltOnError: opts.haltOnError };
  if (state.money) return decideUnderLock(tx, state, items, now, opts);
  let decisions: Decisions;
  try {
    decisions = decide(state, items, now, options);
  } catch (e) {
    if (!(e instanceof NeedsMoney)) throw e;
    // A decision pays: take the pool lock, read the money and decide again.
    state.money = await loadMoney(tx, state, now, true);
    decisions = decide(state, items, now, options);
  }
  return { ...(await writeDecisions(tx, decisions, state.endpoints, opts.deferWebhooks)), decisions, state };
}

/** With the money read under the pool lock: the items decided a chunk at a time, each chunk written while the next one is decided. */
async function decideUnderLock(tx: Tx, state: RulesState, items: readonly RuleItem[], now: Date, opts: RunOptions): Promise<Run> {
  const run = decideInSteps(state, items, now, { ...ids, haltOnError: opts.haltOnError });
  return { ...(await writeDecisions(tx, run.out, state.endpoints, opts.deferWebhooks, run.to)), decisions: run.out, state };
}

/** The ids a decision drew, to draw the same ones when it is decided again (runAhead). */
function drawnIds() {
  const drawn = { ids: [] as string[], codes: [] as string[] };
  return {
    draw: {
      newId: () => {
        const v = ids.newId();
        drawn.ids.push(v);
        return v;
      },
      newCode: () => {
        const v = ids.newCode();
        drawn.codes.push(v);
        return v;
      },
    },
    again: () => {
      let i = 0;
      let c = 0;
      return { newId: () => drawn.ids[i++] ?? ids.newId(), newCode: () => drawn.codes[c++] ?? ids.newCode() };
    },
  };
}

/**
 * A worker batch decided ahead of the pool lock, so that batches of one business overlap: the
 * run takes the locks of the people and referrals it reads (loadState), decides with the money
 * read without the lock, writes its new participants and lets the next batch take its locks
 * (`locked`), writes its other rows and, once the batch before ended, reads again what the pool
 * lock guards (the balance, the day's totals, the tier counts; once more under the lock) and, if
 * they moved, decides again with them, drawing the same ids. Both the same: it writes the debits. Not the same: what it wrote is rolled back
 * and the second decision written (the people and referrals it read are still locked: it is the
 * decision of a run under the lock). Null when the run starts with a reversal event (it reads
 * stored rewards and the pool) or its rows clashed with another transaction's: what it wrote is
 * rolled back, and the caller, holding the pool lock then, runs it again. A run whose batch
 * before has ended by the time it has read is decided under the pool lock at once. Nothing is
 * decided twice in code: both decisions are decide's.
 */
async function runAhead(tx: Tx, scope: RulesScope, items: readonly RuleItem[], opts: RunOptions, ahead: AheadOptions): Promise<Run | null> {
  const now = new Date();
  const options = { haltOnError: opts.haltOnError };
  const state = await loadState(tx, scope, items, now, { rules: opts.rules, money: "later" });
  const first = items[0]?.event;
  if (first && first.status === "QUEUED" && reversalOf(state, first) === "REVERSE") {
    await ahead.takePool();
    return null;
  }
  if (ahead.beforeEnded()) {
    // Nothing to overlap with (the batch before ended while this one read, e.g. waiting for the
    // referrals it locked): decided under the pool lock, what it guards read under it.
    await ahead.takePool();
    Object.assign(state, await reloadGuarded(tx, state, now, { rewards: [], referrals: [] }));
    return decideUnderLock(tx, state, items, now, opts);
  }
  state.money = await loadMoney(tx, state, now, false);
  const peeked = { money: state.money, qualified: state.qualified };
  const drawn = drawnIds();
  const decisions = decide(state, items, now, { ...options, ...drawn.draw });
  await tx.$executeRawUnsafe(`SAVEPOINT rts_ahead`);
  let written: Promise<void> = Promise.resolve();
  try {
    const sent = ahead.sent;
    const run = await writeDecisions(tx, decisions, state.endpoints, opts.deferWebhooks, undefined, {
      // A run that stops before its last item leaves the rest to runs under the pool lock, which
      // may take more locks: the next batch must wait for them.
      locked: () => decisions.next === items.length && ahead.locked(),
      sent: sent && (() => sent(decisions.outcomes)),
      beforeMoney: async () => {
        const own = { rewards: decisions.rewards.map((w) => w.row.id), referrals: decisions.referrals.map((r) => r.row.id) };
        // Once the batch before ended, what it changed is read and the run decided again, before
        // the lock; under the lock the same is read a last time, and decided again only if a
        // request of the business changed it meanwhile (which is rare).
        await ahead.turn();
        let guarded = await reloadGuarded(tx, state, now, own);
        let final = isDeepStrictEqual(guarded, peeked) ? decisions : decide({ ...state, ...guarded }, items, now, { ...options, ...drawn.again() });
        await ahead.takePool();
        const locked = await reloadGuarded(tx, state, now, own);
        if (!isDeepStrictEqual(locked, guarded)) {
          guarded = locked;
          final = decide({ ...state, ...guarded }, items, now, { ...options, ...drawn.again() });
        }
        if (!isDeepStrictEqual(final, decisions)) throw new DecidedAgain(final, { ...state, ...guarded });
      },
    });
    written = run.written;
    await run.written;
    aheadStats.kept += 1;
    return { ...run, decisions, state, keptAhead: true };
  } catch (e) {
    await settled([written]).catch(() => undefined);
    await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT rts_ahead`);
    if (e instanceof DecidedAgain) {
      // Decided again under the pool lock, over the same people and referrals (their locks are
      // held since they were read): that decision is the one a run under the lock makes.
      const run = await writeDecisions(tx, e.decisions, state.endpoints, opts.deferWebhooks);
      await run.written;
      aheadStats.again += 1;
      return { ...run, decisions: e.decisions, state: e.state };
    }
    if (!clash(e)) throw e;
    aheadStats.clashed += 1;
    // Its rows met another transaction's (a referred user a batch before this one created): read again under the lock.
    await ahead.takePool();
    return null;
  }
}

/** Runs decided ahead of the pool lock (process lifetime; logs and tests): written as decided, decided again under the lock, run again after a clash. */
export const aheadStats = { kept: 0, again: 0, clashed: 0 };

/** Decisions made ahead of the pool lock that differ once decided under it. */
class DecidedAgain extends Error {
  constructor(
    readonly decisions: Decisions,
    readonly state: RulesState,
  ) {
    super("decided again under the pool lock");
  }
}

/** An apply's outcome as its callers answer it (the SDK's apply route, the SDK_REFERRAL_APPLY job's result, alone or in a batch). */
export const applyView = (o: Extract<Outcome, { kind: "apply" }>) => ({
  referralId: o.referral.id,
  status: o.referral.status,
  reason: o.referral.reason,
  created: o.created,
  referredParticipant: { participantId: o.referred.id, referralCode: o.referred.referralCode },
});

/** Rows another transaction wrote meanwhile: a unique or foreign-key violation, or new participants that met existing ones. */
const clash = (e: unknown) => e instanceof RowsClashed || isUniqueViolation(e) || isForeignKeyViolation(e);

/** One item through the core, written before it answers. */
export async function runOne(tx: Tx, scope: RulesScope, item: RuleItem): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    await tx.$executeRawUnsafe(`SAVEPOINT rts_rules`);
    try {
      const run = await runRules(tx, scope, [item]);
      await run.written;
      await tx.$executeRawUnsafe(`RELEASE SAVEPOINT rts_rules`);
      return run.outcomes[0];
    } catch (e) {
      await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT rts_rules`);
      if (attempt >= 3 || !clash(e)) throw e;
    }
  }
}
