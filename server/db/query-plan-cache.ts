// Remembers the query plans of Prisma's query compiler for reads.
//
// With the JS engine (`engineType = "client"`), every Prisma call is turned into a query plan by
// a WebAssembly compiler, from the call's JSON (model, action, arguments with their values,
// selection), and then interpreted against the driver adapter. Compiling is the largest single
// cost of a signed-in dashboard read. Prisma 6 keeps no plans, and identical reads are common (every page of a
// dashboard polls the same lists), so this keeps the last plans per compiler, keyed by the exact
// JSON — values included, so a plan is only ever reused for the very same query.
//
// Only reads are remembered (single queries, and batches of reads: Prisma batches findUnique):
// a write's plan may carry values the compiler generated (ids, timestamps), which must be new on
// every call. Plans are plain objects that execution does not
// change (checked by server/db/query-plan-cache.test.ts). `QUERY_PLAN_CACHE=0` turns this off.
import { env } from "../shared/env";
const READ_ACTIONS = new Set(["findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow", "findMany", "aggregate", "groupBy"]);
const ACTION = /"action":"(\w+)"/g;

/**
 * Every action the request names (one, or one per item of a batch) is a read. A value in the
 * arguments can only add occurrences, never hide a write's own action.
 */
function onlyReads(request: string): boolean {
  let any = false;
  for (const m of request.matchAll(ACTION)) {
    if (!READ_ACTIONS.has(m[1])) return false;
    any = true;
  }
  return any;
}

const MAX_PLANS = 2_000;
const MAX_KEY_LENGTH = 16_384;

type Compile = (this: object, request: string) => unknown;

export const queryPlanStats = { hits: 0, misses: 0 };

const PATCHED = Symbol.for("rts.queryPlanCache");

/** Wraps the compiler's `compile` and `compileBatch` once per process; anything unexpected leaves Prisma as it is. */
export function installQueryPlanCache(compilerClass: unknown): boolean {
  const proto = (compilerClass as { prototype?: Record<PropertyKey, unknown> } | undefined)?.prototype;
  if (!proto || typeof proto.compile !== "function" || typeof proto.compileBatch !== "function") return false;
  if (proto[PATCHED]) return true;
  const plans = new WeakMap<object, Map<string, unknown>>();
  for (const method of ["compile", "compileBatch"] as const) {
    const original = proto[method] as Compile;
    proto[method] = function (this: object, request: string) {
      if (env.queryPlanCacheOff || typeof request !== "string" || request.length > MAX_KEY_LENGTH || !onlyReads(request)) {
        return original.call(this, request);
      }
      let mine = plans.get(this);
      if (!mine) plans.set(this, (mine = new Map()));
      const key = `${method}:${request}`;
      const known = mine.get(key);
      if (known !== undefined) {
        queryPlanStats.hits++;
        return known;
      }
      queryPlanStats.misses++;
      const plan = original.call(this, request);
      if (mine.size >= MAX_PLANS) mine.delete(mine.keys().next().value as string);
      mine.set(key, plan);
      return plan;
    } satisfies Compile;
  }
  proto[PATCHED] = true;
  return true;
}
