// The PGlite driver adapter reports a database error as { kind: "postgres", code, message, … },
// the shape of an older Prisma; this Prisma reads a raw statement's error from `originalCode` and
// `originalMessage`, so on PGlite every failed raw statement read "Raw query failed. Code: `N/A`.
// Message: `undefined`": the logs lost the database's own words, and checks that recognise an
// error by them (a unique violation, a clash to retry) missed it. This wraps the adapter so each
// such error also carries its code and message where this Prisma looks for them, as
// @prisma/adapter-pg reports them on PostgreSQL. Model queries keep the error they had.

//
// It also keeps a transaction's COMMIT from failing silently: the adapter's commit() awaits a
// promise whose rejection it has already caught, so a COMMIT that PGlite refuses (a deferred
// constraint, a write that fails) answered as committed while PGlite rolled it back. The PGlite
// client's transactions record how they ended (recordTransactionEnds), and a transaction's
// commit() throws what its COMMIT threw.

/** The adapter's error class, as Prisma recognises it (by its name and an object cause): not a dependency of ours. */
class DriverAdapterError extends Error {
  override name = "DriverAdapterError";
  constructor(override cause: Record<string, unknown>) {
    super(typeof cause.message === "string" ? cause.message : String(cause.kind));
  }
}

/** How each PGlite transaction that failed ended, by its transaction object (see recordTransactionEnds). */
const failedTransactions = new WeakMap<object, unknown>();

interface PgliteTransacting {
  transaction<T>(callback: (tx: never) => Promise<T>): Promise<T>;
}

/** Makes the PGlite client remember the error each of its transactions ended with, for commit() to throw. */
export function recordTransactionEnds(pg: PgliteTransacting): void {
  const real = pg.transaction.bind(pg);
  pg.transaction = <T>(callback: (tx: never) => Promise<T>) => {
    let txObject: object | undefined;
    const ended = real(async (tx: never) => {
      txObject = tx;
      return callback(tx);
    });
    ended.catch((e: unknown) => {
      if (txObject) failedTransactions.set(txObject, e);
    });
    return ended;
  };
}

/** A PGlite error as the adapter reports one (DriverAdapterError), with its code and message where this Prisma reads them. */
function asAdapterError(e: unknown): unknown {
  const d = e as { name?: unknown; code?: unknown; severity?: unknown; message?: unknown; detail?: unknown; column?: unknown; hint?: unknown };
  if (typeof d?.code !== "string" || typeof d.severity !== "string") return e;
  return withOriginal(new DriverAdapterError({ kind: "postgres", code: d.code, severity: d.severity, message: String(d.message), detail: d.detail, column: d.column, hint: d.hint }));
}

/** The driver adapter's methods that run statements (the adapter's and its transactions'). */
const RUNS = new Set<PropertyKey>(["queryRaw", "executeRaw", "executeScript"]);

interface PostgresCause {
  kind?: unknown;
  code?: unknown;
  message?: unknown;
  originalCode?: unknown;
  originalMessage?: unknown;
}

/** Gives a PGlite adapter error its code and message as this Prisma reads them; anything else unchanged. */
function withOriginal(e: unknown): unknown {
  const cause = (e as { name?: unknown; cause?: PostgresCause } | null)?.cause;
  if ((e as { name?: unknown } | null)?.name !== "DriverAdapterError" || !cause || cause.kind !== "postgres") return e;
  cause.originalCode ??= cause.code;
  cause.originalMessage ??= cause.message;
  return e;
}

function wrap<T extends object>(target: T): T {
  return new Proxy(target, {
    get(t, key) {
      const v: unknown = Reflect.get(t, key, t);
      if (typeof v !== "function") return v;
      const fn = v as (...args: unknown[]) => unknown;
      if (RUNS.has(key)) {
        return async (...args: unknown[]) => {
          try {
            return await fn.apply(t, args);
          } catch (e) {
            throw withOriginal(e);
          }
        };
      }
      if (key === "startTransaction") {
        return async (...args: unknown[]) => {
          const tx = (await fn.apply(t, args)) as { client?: object; commit: () => Promise<void> };
          const commit = tx.commit.bind(tx);
          tx.commit = async () => {
            await commit();
            const failed = tx.client ? failedTransactions.get(tx.client) : undefined;
            if (failed !== undefined) throw asAdapterError(failed);
          };
          return wrap(tx);
        };
      }
      return fn.bind(t);
    },
  });
}

/** The adapter factory, whose adapters (and their transactions) report errors with their code and message. */
export function withPgliteErrors<F extends { connect: () => Promise<object> }>(factory: F): F {
  return new Proxy(factory, {
    get(t, key) {
      if (key === "connect") return async () => wrap(await t.connect());
      const v: unknown = Reflect.get(t, key, t);
      return typeof v === "function" ? (v as (...args: unknown[]) => unknown).bind(t) : v;
    },
  });
}
