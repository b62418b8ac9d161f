// Work to add to the next transaction of the current request: the staff audit log records a
// change in the same transaction as the change (server/trpc/audit.ts). Within txScope.run(...),
// the first interactive db.$transaction runs `beforeCommit(tx)` after its callback, before it
// commits; the hook runs once per committed transaction (a rolled-back one gives it back).
import { AsyncLocalStorage } from "node:async_hooks";

export interface TxScope<T = unknown> {
  beforeCommit?: (tx: T) => Promise<void>;
}

export const txScope = new AsyncLocalStorage<TxScope>();

type TransactionFn = (arg: unknown, options?: unknown) => Promise<unknown>;

/** client.$transaction, with the scope's hook appended to an interactive transaction. */
export function withTxHook(client: { $transaction: TransactionFn }): TransactionFn {
  const scope = txScope.getStore();
  const run = client.$transaction.bind(client);
  if (!scope?.beforeCommit) return run;
  return (arg, options) => {
    if (typeof arg !== "function") return run(arg, options);
    const fn = arg as (tx: unknown) => Promise<unknown>;
    let taken: TxScope["beforeCommit"];
    return run(async (tx: unknown) => {
      const result = await fn(tx);
      const hook = scope.beforeCommit;
      if (hook) {
        scope.beforeCommit = undefined;
        taken = hook;
        await hook(tx);
      }
      return result;
    }, options).catch((e: unknown) => {
      // Rolled back (the hook's own work with it): the hook goes back to the scope, so that the
      // transaction run again (transactionRetried) or the caller's fallback still records it.
      if (taken && !scope.beforeCommit) scope.beforeCommit = taken;
      throw e;
    });
  };
}
