// The Prisma client factory: PGlite (file-backed, under .data/) when DATABASE_URL is unset,
// PostgreSQL through @prisma/adapter-pg when it is set. One client per process, migrations
// applied before the first query. Also the doors for raw SQL (txSql, rawRows, below). The pool
// of PostgreSQL connections is pg-pool.ts; the direct channel to a transaction's connection is
// direct-sql.ts.
import { withTxHook } from "./tx-hooks";
import { mkdirSync } from "node:fs";
import { env } from "../shared/env";
import { applyMigrations, type SqlRunner } from "./migrate";
import { openInstallation } from "./installation";
import { Prisma, PrismaClient } from "./generated";
import { installQueryPlanCache } from "./query-plan-cache";
import { directOff, openDirectChannel, setDirectTypes, type DirectSql } from "./direct-sql";
import { connectionBounds, openAppPool, QUEUE_WAIT_MS, UTC_SESSION, utcTypeParsers } from "./pg-pool";
import type { PGlite } from "@electric-sql/pglite";
import { recordTransactionEnds, withPgliteErrors } from "./pglite-errors";

export { Prisma };
export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;
export type { DirectSql };
export { openAppPool, type ConnectionBounds } from "./pg-pool";

type DirectQuery = (sql: string, values: unknown[]) => Promise<{ rows: unknown[] }>;

interface DbState {
  client: PrismaClient;
  ready: Promise<void>;
  kind: "pglite" | "postgres";
  close: () => Promise<void>;
  /** PostgreSQL: one statement on the app's pool, outside Prisma (rawRows). */
  direct?: DirectQuery;
}

const g = globalThis as unknown as { __rtsDb?: DbState };

type Opened = {
  runner: SqlRunner;
  adapter: unknown;
  close: () => Promise<void>;
  direct?: DirectQuery;
  /** After the migrations: PGlite learns the array types they created (arrays of our enums as parameters). */
  migrated?: () => Promise<void>;
};

async function openPglite(dir: string): Promise<Opened> {
  const { PGlite } = await import("@electric-sql/pglite");
  if (dir !== "memory://") mkdirSync(dir, { recursive: true });
  return wrapPglite(await PGlite.create(dir === "memory://" ? undefined : dir));
}

async function wrapPglite(pg: PGlite): Promise<Opened> {
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  recordTransactionEnds(pg as never);
  return {
    runner: {
      query: (sql, params) => pg.query(sql, params),
      exec: async (sql) => void (await pg.exec(sql)),
    },
    adapter: withPgliteErrors(new PrismaPGlite(pg)),
    close: () => pg.close(),
    // PGlite serializes a parameter by its type, and knows only the array types that existed when
    // it opened: `$1::"JobType"[]` would otherwise get the text "A,B" instead of an array.
    migrated: () => pg.refreshArrayTypes(),
  };
}

async function openPostgres(url: string): Promise<Opened> {
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const pg = await import("pg");
  const pool = new pg.default.Pool({ connectionString: url, max: 1, options: UTC_SESSION });
  const runner: SqlRunner = {
    query: (sql, params) => pool.query(sql, params),
    exec: async (sql) => void (await pool.query(sql)),
  };
  const appPool = await openAppPool(url, env.databasePoolSize, connectionBounds());
  const utcTypes = utcTypeParsers(pg);
  setDirectTypes(utcTypes);
  const direct: DirectQuery = (sql, values) => appPool.query({ text: sql, values, types: utcTypes } as never);
  return { runner, adapter: new PrismaPg(appPool, { disposeExternalPool: true }), close: () => pool.end(), direct };
}

function create(given?: PGlite): DbState {
  const kind = env.databaseUrl && !given ? "postgres" : "pglite";
  let closeRaw: () => Promise<void> = async () => {};
  let resolveClient!: (c: PrismaClient) => void;
  let directQuery: DirectQuery | undefined;
  const clientPromise = new Promise<PrismaClient>((r) => (resolveClient = r));
  const ready = (async () => {
    const opened = given ? await wrapPglite(given) : env.databaseUrl ? await openPostgres(env.databaseUrl) : await openPglite(env.pgliteDir);
    closeRaw = opened.close;
    directQuery = opened.direct;
    if (kind === "pglite" || env.migrateOnStart) await applyMigrations(opened.runner);
    await opened.migrated?.();
    await openInstallation(opened.runner);
    if (kind === "postgres") await opened.close();
    // Under bursts, transactions queue for a pooled connection (PostgreSQL) or for PGlite's single
    // one; Prisma's 2 s default maxWait would turn that queueing into 500s.
    const client = new PrismaClient({ adapter: opened.adapter as never, transactionOptions: { maxWait: QUEUE_WAIT_MS, timeout: 30_000 } });
    // Reads reuse their compiled query plans (query-plan-cache.ts): the compiler class comes from
    // the very loader this client uses, so the patch reaches the compiler it runs.
    const compilerWasm = (client as unknown as { _engineConfig?: { compilerWasm?: { getRuntime?: () => Promise<{ QueryCompiler?: unknown }> } } })._engineConfig?.compilerWasm;
    installQueryPlanCache((await compilerWasm?.getRuntime?.().catch(() => undefined))?.QueryCompiler);
    resolveClient(client);
  })();
  // A proxy lets callers use `db` synchronously; every model call awaits readiness first.
  const client = lazyClient(clientPromise);
  return {
    get direct() {
      return directQuery;
    },
    client,
    ready,
    kind,
    close: async () => {
      const c = await clientPromise;
      await c.$disconnect();
      if (kind === "pglite") await closeRaw();
    },
  };
}

/** Wraps the eventual client so `db.user.findMany()` works before the connection is open. */
function lazyClient(p: Promise<PrismaClient>): PrismaClient {
  let real: PrismaClient | undefined;
  void p.then((c) => (real = c));
  const wrap = (path: PropertyKey[]): unknown =>
    new Proxy(function () {}, {
      get(_t, prop) {
        if (real) {
          let v: unknown = real;
          for (const k of [...path, prop]) v = (v as Record<PropertyKey, unknown>)[k];
          if (typeof v === "function") {
            let parent: unknown = real;
            for (const k of path) parent = (parent as Record<PropertyKey, unknown>)[k];
            return (v as (...a: unknown[]) => unknown).bind(parent);
          }
          return v;
        }
        if (prop === "then") return undefined;
        return wrap([...path, prop]);
      },
      apply(_t, _this, args) {
        return p.then((c) => {
          let parent: unknown = c;
          for (const k of path.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown>)[k];
          const fn = (parent as Record<PropertyKey, (...a: unknown[]) => unknown>)[path[path.length - 1]];
          return fn.apply(parent, args);
        });
      },
    });
  return wrap([]) as PrismaClient;
}

function state(): DbState {
  if (!g.__rtsDb) g.__rtsDb = create();
  return g.__rtsDb;
}

/** The process-wide Prisma client. */
export const db: PrismaClient = new Proxy({} as PrismaClient, {
  get: (_t, prop) =>
    prop === "$transaction"
      ? // After readiness: before it, the lazy client's $transaction is a path proxy, not the method.
        (arg: unknown, options?: unknown) => state().ready.then(() => withTxHook(state().client as unknown as Parameters<typeof withTxHook>[0])(arg, options))
      : (state().client as unknown as Record<PropertyKey, unknown>)[prop],
});

// ── Raw SQL: two doors, named for when to use them ──
// txSql(tx): bulk statements inside a transaction (the worker batch, the outbox, queued events);
// rawRows(sql): one statement outside any transaction on the hottest request paths. Both go
// straight to PostgreSQL's connection where they can (direct-sql.ts) and through Prisma on PGlite.

/** The transaction's direct channel on PostgreSQL (null elsewhere); txSql is the door to use. */
export async function directSql(tx: Tx): Promise<DirectSql | null> {
  if (state().kind !== "postgres" || directOff()) return null;
  return openDirectChannel(tx);
}

/** The transaction's direct channel where there is one (PostgreSQL), else the same two calls through the transaction. */
export async function txSql(tx: Tx): Promise<DirectSql> {
  return (
    (await directSql(tx)) ?? {
      execute: (sql, ...values) => tx.$executeRawUnsafe(sql, ...values),
      query: <T>(sql: string, ...values: unknown[]) => tx.$queryRawUnsafe<T[]>(sql, ...values),
    }
  );
}

/**
 * One statement outside any transaction, for the hottest request paths (POST /track's key lookup
 * and write): on PostgreSQL straight to the app's pool, skipping Prisma's per-statement compile
 * and interpretation (about a third of a queued /track's CPU); on PGlite through Prisma. The
 * rows are as pg reads them: text, booleans, int4, arrays and json alike on both paths,
 * timestamps as UTC Dates; cast numeric and bigint columns to text in the statement.
 */
export async function rawRows<T>(sql: string, ...values: unknown[]): Promise<T[]> {
  const s = state();
  await s.ready;
  if (s.direct && !directOff()) return (await s.direct(sql, values)).rows as T[];
  return s.client.$queryRawUnsafe<T[]>(sql, ...values);
}

/** Resolves when the database is open and migrated. */
export const dbReady = () => state().ready;
export const dbKind = () => state().kind;

/**
 * One turn of Node's event loop on PGlite, for code that runs many statements in a row. PGlite
 * answers in the same thread without I/O, so a chain of its queries never lets the event loop
 * reach timers or sockets: the process's requests wait for the whole chain. PostgreSQL's answers
 * arrive as I/O and need no such turn.
 */
export async function pgliteTurn(): Promise<void> {
  if (state().kind === "pglite") await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Makes `db` use this PGlite instance (already open; migrations still applied if missing).
 * The unit test layer gives each test worker process one migrated database this way (emptied between files).
 */
export function attachPglite(pg: PGlite) {
  if (g.__rtsDb) throw new Error("attachPglite: the database is already open in this process");
  g.__rtsDb = create(pg);
  return g.__rtsDb.ready;
}

export async function closeDb() {
  if (!g.__rtsDb) return;
  const s = g.__rtsDb;
  g.__rtsDb = undefined;
  await s.close();
}
