// The PGlite driver adapter reports a database error as { kind: "postgres", code, message, … },
// the shape of an older Prisma; this Prisma reads a raw statement's error from `originalCode` and
// `originalMessage`, so on PGlite every failed raw statement read "Raw query failed. Code: `N/A`.
// Message: `undefined`": the logs lost the database's own words, and checks that recognise an
// error by them (a unique violation, a clash to retry) missed it. This wraps the adapter so each
// such error also carries its code and message where this Prisma looks for them, as
// @prisma/adapter-pg reports them on PostgreSQL. Model queries keep the error they had.

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
      if (key === "startTransaction") return async (...args: unknown[]) => wrap((await fn.apply(t, args)) as object);
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
