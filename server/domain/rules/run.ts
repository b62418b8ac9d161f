// The one way into the rules core: load the state for some items, decide, write. The worker's
// batches call runRules for a run of queued events (the pool already locked); every single path
// (synchronous /track, the dashboard's event, SDK_REFERRAL_APPLY, settleEvent) calls runOne, a
// batch of one in a savepoint, retried when a concurrent request created the same participant
// or referral meanwhile.
import type { Tx } from "../../db/client";
import { isForeignKeyViolation, isUniqueViolation } from "../../db/unique-violation";
import { newId } from "../../shared/ids";
import { generateReferralCode } from "../participants/service";
import { decide, decideInSteps, NeedsMoney, type Decisions, type Outcome, type RuleItem, type RulesState } from "./decide";
import { loadMoney, loadState, type LoadedRules, type RulesScope } from "./state";
import { RowsClashed, writeDecisions, type Written } from "./write";

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
}

type Run = Written & { decisions: Decisions; state: RulesState };

export async function runRules(tx: Tx, scope: RulesScope, items: readonly RuleItem[], opts: RunOptions = {}): Promise<Run> {
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
