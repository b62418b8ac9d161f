// The Prisma client factory: PGlite (file-backed, under .data/) when DATABASE_URL is unset,
// PostgreSQL through @prisma/adapter-pg when it is set. One client per process, migrations
// applied before the first query.
import { mkdirSync } from "node:fs";
import { env } from "../shared/env";
import { applyMigrations, type SqlRunner } from "./migrate";
import { Prisma, PrismaClient } from "./generated";
import { installQueryPlanCache } from "./query-plan-cache";
import type { PGlite } from "@electric-sql/pglite";
import type { Pool, PoolClient } from "pg";

export { Prisma };
export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

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

type Opened = { runner: SqlRunner; adapter: unknown; close: () => Promise<void>; direct?: DirectQuery };

async function openPglite(dir: string): Promise<Opened> {
  const { PGlite } = await import("@electric-sql/pglite");
  if (dir !== "memory://") mkdirSync(dir, { recursive: true });
  return wrapPglite(await PGlite.create(dir === "memory://" ? undefined : dir));
}

async function wrapPglite(pg: PGlite): Promise<Opened> {
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  return {
    runner: {
      query: (sql, params) => pg.query(sql, params),
      exec: async (sql) => void (await pg.exec(sql)),
    },
    adapter: new PrismaPGlite(pg),
    close: () => pg.close(),
  };
}

// Every session runs in UTC, whatever the server's or the database's TimeZone setting (a
// startup-packet option outranks ALTER DATABASE/ROLE ... SET TimeZone): timestamp columns hold
// UTC wall-clock values, so now(), CURRENT_TIMESTAMP defaults and date arithmetic must be UTC
// too. Raw SQL also compares with (now() AT TIME ZONE 'UTC'), which is right in any session.
const UTC_SESSION = "-c TimeZone=UTC";

// No request waits forever on a dead server or a half-open socket (a crashed or restarting
// PostgreSQL): opening a connection gives up after 5 s, a query without any answer after 20 s,
// and TCP keep-alive notices vanished peers. Those failures are answered 503 + Retry-After.
// Waiting for a free pooled connection is another matter: under a burst every connection is busy
// in a transaction and the others queue, for as long as Prisma's maxWait (15 s, below). pg-pool
// has one setting for both waits, so the pool's is the queue's bound and each connection gets
// its own 5 s bound (CONNECT_TIMEOUT_MS) from the client class.
const CONNECT_TIMEOUT_MS = 5_000;
const QUEUE_WAIT_MS = 15_000;
const CONNECTION_BOUNDS = { connectionTimeoutMillis: QUEUE_WAIT_MS, query_timeout: 20_000, keepAlive: true };

const END_HOOK = Symbol("rts.endHook");
type HookedClient = PoolClient & { [END_HOOK]?: () => void };

/**
 * A connection that dies while checked out (PostgreSQL crashed or restarted mid-transaction)
 * is released with an error, which removes it from the pool. Without this, a transaction whose
 * ROLLBACK fails on the dead socket never gives its client back, and after `max` such losses
 * every request waits for a connection forever (measured: bench/faults.ts, docs/reliability.md).
 */
function freeClientsThatDie(pool: Pool) {
  pool.on("error", () => {}); // an idle client's connection died: the pool drops it by itself
  pool.on("acquire", (c) => {
    const client = c as HookedClient;
    // pg-pool sets client.release right after emitting "acquire".
    queueMicrotask(() => {
      const release = client.release.bind(client);
      const onEnd = () => {
        try {
          release(new Error("connection lost while checked out"));
        } catch {
          /* already released */
        }
      };
      client[END_HOOK] = onEnd;
      client.once("end", onEnd);
    });
  });
  pool.on("release", (_err: Error | undefined, c: unknown) => {
    const client = c as HookedClient;
    const hook = client[END_HOOK];
    if (hook) {
      client.removeListener("end", hook);
      delete client[END_HOOK];
    }
  });
}

async function openPostgres(url: string): Promise<Opened> {
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const pg = await import("pg");
  const pool = new pg.default.Pool({ connectionString: url, max: 1, options: UTC_SESSION });
  const runner: SqlRunner = {
    query: (sql, params) => pool.query(sql, params),
    exec: async (sql) => void (await pool.query(sql)),
  };
  const max = Number(process.env.DATABASE_POOL_SIZE ?? 10);
  class BoundedClient extends pg.default.Client {
    constructor(config?: ConstructorParameters<typeof pg.default.Client>[0]) {
      super({ ...(typeof config === "string" ? { connectionString: config } : config), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    }
    // The direct channel's handshake (directSql): the statement names the transaction's token.
    override query(...args: unknown[]): never {
      const [config, values] = args as [{ text?: unknown } | string, unknown[] | undefined];
      if (typeof config === "object" && config?.text === DIRECT_HANDSHAKE) {
        const token = (values ?? (config as { values?: unknown[] }).values)?.[0];
        if (typeof token === "string") directChannels.set(token, this);
      }
      return (super.query as (...a: unknown[]) => never)(...args);
    }
  }
  const appPool = new pg.default.Pool({ connectionString: url, max, options: UTC_SESSION, ...CONNECTION_BOUNDS, Client: BoundedClient });
  freeClientsThatDie(appPool);
  // timestamp(3) columns hold UTC wall-clock time: read them as UTC, as Prisma does.
  utcTypes = { getTypeParser: (oid: number, format?: string) => (oid === 1114 ? (v: string) => new Date(`${v.replace(" ", "T")}Z`) : pg.default.types.getTypeParser(oid, format as "text")) };
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
    if (kind === "pglite" || process.env.MIGRATE_ON_START === "1") await applyMigrations(opened.runner);
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
  get: (_t, prop) => (state().client as unknown as Record<PropertyKey, unknown>)[prop],
});

// ── The direct channel: bulk statements of a transaction, without Prisma's per-query work ──
//
// Prisma turns every statement, raw ones included, into JSON for its query compiler and back:
// for a statement carrying thousands of array elements (a worker batch's inserts) that costs
// several times the database's own work (bench: 21 ms of CPU through Prisma against 4 ms through
// pg for ten 1,000-element arrays). directSql(tx) finds the pg connection that this Prisma
// transaction holds (one handshake statement through the transaction, which our connection
// class recognises) and sends statements to it directly: same connection, same transaction,
// in order. Only within the transaction callback (after it the connection belongs to someone
// else), and only on PostgreSQL; on PGlite it answers null and callers use the transaction.

const DIRECT_HANDSHAKE = "SELECT $1::text AS rts_direct_channel";
const directChannels = new Map<string, { query: (config: { text: string; values: unknown[]; types?: unknown }) => Promise<{ rowCount: number | null; rows: unknown[] }> }>();
/** pg's type parsers, with timestamp(3) read as UTC (set when PostgreSQL is opened). */
let utcTypes: unknown;

export interface DirectSql {
  /** Runs one statement in the transaction; answers the number of rows it affected. */
  execute(sql: string, ...values: unknown[]): Promise<number>;
  /** Runs one statement in the transaction; answers its rows as rawRows reads them. */
  query<T>(sql: string, ...values: unknown[]): Promise<T[]>;
}

const channelOf = new WeakMap<object, DirectSql>();
const directOff = () => process.env.DIRECT_SQL === "0";

export async function directSql(tx: Tx): Promise<DirectSql | null> {
  if (state().kind !== "postgres" || directOff()) return null;
  const known = channelOf.get(tx);
  if (known) return known;
  const token = `${process.pid}:${Math.random().toString(36).slice(2)}:${Date.now()}`;
  await tx.$queryRawUnsafe(DIRECT_HANDSHAKE, token);
  const client = directChannels.get(token);
  directChannels.delete(token);
  if (!client) return null;
  // Statements may be issued before the previous one answered (the set-based path sends a chunk
  // of writes while it decides the next): they queue here and go to the connection one at a
  // time, in order (pg's own queue for that is deprecated).
  let tail: Promise<unknown> = Promise.resolve();
  const inOrder = <R>(send: () => Promise<R>): Promise<R> => {
    const p = tail.then(send, send);
    tail = p.catch(() => undefined);
    return p;
  };
  const channel: DirectSql = {
    execute: (sql, ...values) => inOrder(async () => (await client.query({ text: sql, values })).rowCount ?? 0),
    query: <T>(sql: string, ...values: unknown[]) => inOrder(async () => (await client.query({ text: sql, values, types: utcTypes })).rows as T[]),
  };
  channelOf.set(tx, channel);
  return channel;
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
