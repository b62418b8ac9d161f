// The worker's batch of queued events and referral applies (worker-batch.ts decideWorkerBatch)
// through the rules core: for a run of queued events (and SDK_REFERRAL_APPLY jobs) of one
// business and environment, the state is loaded in a few
// statements, every event decided in arrival order (rules/decide.ts) and the results written a
// chunk of events per statement (rules/write.ts). Every shape is decided here; an event whose
// processing fails (an unknown referrer code, malformed metadata) stops the run, and the caller
// runs it alone, where it fails as a job; a reversal event starts a run of its own.
//
// The worker's runs are decided with the business+environment pool lock held (so the balance,
// the daily totals and the tier counts read here cannot change underneath); synchronous requests decided together
// (tracking/service.ts) let the run take it only when a decision pays, as a batch of one does.
// Either runs this inside its transaction: a failure of any statement fails the whole batch
// transaction, whose items then run one by one.
import { txSql, type Tx } from "../../db/client";
import type { Prisma, TrackedEvent } from "../../db/generated";
import type { Environment } from "../../shared/environment";
import { toRewardSummary } from "../rewards/engine";
import { readAsset } from "../assets/read";
import type { Asset } from "../../shared/asset";
import { reversalOf, type Outcome, type RuleItem, type RulesState } from "../rules/decide";
import { applyView, runRules } from "../rules/run";
import { applyItem, eventItem, loadRules, type ApplyInput, type LoadedRules } from "../rules/state";

export { settled, writeTuning } from "../rules/write";

export interface BatchItem {
  /** The caller's key for the outcome (the job id). */
  key: string;
  eventId: string;
  apiKeyId: string | null;
  /** A referral apply (an SDK_REFERRAL_APPLY job's input) instead of an event: decided in the same run. */
  apply?: ApplyInput;
  /** The apply was sent with a publishable key (referrals/schemas.ts applyJobOf). */
  untrusted?: boolean;
}

/** The job result of an event, as the EVENT_PROCESS handler returns it. */
type EventResult = Prisma.InputJsonObject;

export interface FastRun {
  /** Outcomes of the events decided and written, in order: the first `next` items. */
  done: { key: string; result: EventResult }[];
  /** Index (in the items given) where the caller continues. */
  next: number;
  /** True when items[next] failed: run it alone (where it fails as a job), then call again for the rest. Always true when `next` is 0 and items are left: a run makes progress or says it cannot. */
  slow: boolean;
  /** Settles when the run's writes are done (rules/write.ts `written`): await it before the transaction goes on. */
  written: Promise<void>;
}

/** Items decided by runs, of them events of users referred before the run and referral applies, and runs stopped by a failing item (process lifetime; logs and tests). */
export const fastPathStats = { fast: 0, repeat: 0, apply: 0, slow: 0 };

/** What a run reads that the pool lock does not guard: the business's rules and the run's events. */
export interface RunInputs {
  rules: LoadedRules | null;
  events: Map<string, TrackedEvent>;
  /** The environment's asset (its rewards' amounts are answered in it); read by the run when absent. */
  asset?: Asset;
}

/** Reads a run's inputs before the caller takes the pool lock (they overlap with the batch ahead of it). */
export async function readRunInputs(tx: Tx, businessId: string, environment: Environment, items: BatchItem[]): Promise<RunInputs> {
  const [rules, asset] = await Promise.all([loadRules(tx, { businessId, environment }, false), readAsset(tx, businessId, environment)]);
  const rows = await (await txSql(tx)).query<TrackedEvent>(
    `SELECT * FROM "TrackedEvent" WHERE id = ANY($1::text[]) AND "businessId" = $2 AND environment = $3::"Environment"`,
    items.map((i) => i.eventId),
    businessId,
    environment,
  );
  return { rules, events: new Map(rows.map((e) => [e.id, e])), asset };
}

/**
 * Decides and writes, in arrival order, the events of `slice` (one business and environment) up
 * to the first one that fails or a reversal event after the first. `inputs`: readRunInputs for
 * these events, when the caller read them already (before the pool lock). `poolLocked` false:
 * the caller does not hold the pool lock, which the run then takes only if a decision pays.
 * `deferWebhooks`: the run's webhook events go to one fan-out job (the worker's batches).
 */
export async function processEventRun(
  tx: Tx,
  businessId: string,
  environment: Environment,
  slice: BatchItem[],
  inputs?: RunInputs,
  poolLocked = true,
  deferWebhooks = false,
): Promise<FastRun> {
  if (slice.length === 0) return { done: [], next: 0, slow: false, written: Promise.resolve() };
  const { rules, events, asset: read } = inputs ?? (await readRunInputs(tx, businessId, environment, slice));
  const asset = read ?? (await readAsset(tx, businessId, environment));
  const items: RuleItem[] = [];
  for (const it of slice) {
    if (it.apply) {
      items.push(applyItem(it.key, it.apply, it.apiKeyId, it.untrusted === true));
      continue;
    }
    const e = events.get(it.eventId);
    if (!e) break; // the one-by-one path answers NOT_FOUND
    items.push(eventItem(it.key, e, it.apiKeyId));
  }
  if (items.length === 0) {
    fastPathStats.slow += 1;
    return { done: [], next: 0, slow: true, written: Promise.resolve() };
  }
  const run = await runRules(tx, { businessId, environment }, items, { rules: rules ?? undefined, poolLocked, haltOnError: true, deferWebhooks });
  const done = resultsOf(run.outcomes, asset);
  const known = new Set(run.state.participants.map((p) => p.id));
  for (const o of run.outcomes) {
    if (o.kind === "apply") fastPathStats.apply += 1;
    else if (o.kind === "event" && !o.skipped && o.referred && known.has(o.referred.id)) fastPathStats.repeat += 1;
  }
  fastPathStats.fast += done.length;
  const next = run.decisions.next;
  // Stopped before the end: a failing event (slow), or a reversal event after the first, decided
  // first in the next run. Stopped at the first item: it failed, whatever its kind (a reversal
  // event with an unknown referrer code, say): the caller must run it alone, or call again forever.
  const slow = next < slice.length && (next === 0 || !isReversalNext(items, next, run.state));
  if (slow) fastPathStats.slow += 1;
  return { done, next, slow, written: run.written };
}

/** The job results of a run's outcomes, as the EVENT_PROCESS and SDK_REFERRAL_APPLY handlers return them. */
function resultsOf(outcomes: readonly Outcome[], asset: Asset): FastRun["done"] {
  const done: FastRun["done"] = [];
  for (const o of outcomes) {
    if (o.kind === "apply") {
      done.push({ key: o.key, result: applyView(o) });
      continue;
    }
    if (o.kind !== "event") continue; // haltOnError: never an error outcome
    if (o.skipped) {
      done.push({ key: o.key, result: { eventId: o.eventId, status: o.status, reason: o.reason, skipped: true } });
      continue;
    }
    done.push({
      key: o.key,
      result: {
        eventId: o.eventId,
        status: o.status,
        reason: o.reason,
        referralId: o.referral?.id ?? null,
        referredParticipant: o.referred ? { participantId: o.referred.id, referralCode: o.referred.referralCode } : null,
        rewards: o.rewards.map((r) => toRewardSummary(r, asset)) as unknown as Prisma.InputJsonArray,
        // Waits for a price (PRICE_UNAVAILABLE): the jobs layer reschedules its job.
        ...(o.wait ? { wait: true } : {}),
      },
    });
  }
  return done;
}

const isReversalNext = (items: RuleItem[], next: number, state: RulesState) => {
  const e = items[next]?.event;
  return !!e && e.status === "QUEUED" && reversalOf(state, e) === "REVERSE";
};
