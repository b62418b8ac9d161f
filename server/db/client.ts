// The Prisma client factory: PGlite (file-backed, under .data/) when DATABASE_URL is unset,
// PostgreSQL through @prisma/adapter-pg when it is set. One client per process, migrations
// applied before the first query.
import { withTxHook } from "./tx-hooks";
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

// Bounds on every connection of the app's pool. Both waits that can be long are bounded, and
// where the bound is enforced matters:
// - A statement gets at most DATABASE_STATEMENT_TIMEOUT_MS (20 s), enforced by the server
//   (statement_timeout, lock waits included): the statement is cancelled, its transaction fails,
//   and the ROLLBACK that follows runs at once. A bound kept only in the client (pg's
//   query_timeout) leaves the statement running: measured, a worker's lockPool waiting behind a
//   slow batch outlived it, the ROLLBACK queued behind it outlived it too and was dropped from
//   the connection's queue unsent, and once the lock came the connection sat idle in its
//   transaction, holding the business's pool lock, until the process died (every later batch
//   of that business waited behind it).
// - A transaction left idle for DATABASE_IDLE_IN_TRANSACTION_MS (60 s) is ended by the server
//   (idle_in_transaction_session_timeout): whatever goes wrong in a process, no connection of it
//   holds locks for longer. No transaction of ours waits on anything but the database.
// - No answer at all (a dead server, a half-open socket): after the statement bound plus 5 s the
//   connection is destroyed (noAnswerMs, BoundedClient), which fails its queued statements and
//   takes it out of the pool; opening a connection gives up after 5 s; TCP keep-alive notices
//   vanished peers. Those failures are answered 503 + Retry-After.
// Waiting for a free pooled connection is another matter: under a burst every connection is busy
// in a transaction and the others queue, for as long as Prisma's maxWait (15 s, below). pg-pool
// has one setting for both waits, so the pool's is the queue's bound and each connection gets
// its own 5 s bound (CONNECT_TIMEOUT_MS) from the client class.
const CONNECT_TIMEOUT_MS = 5_000;
const QUEUE_WAIT_MS = 15_000;

export type ConnectionBounds = ReturnType<typeof connectionBounds>;

/** The server-side bounds and the client's, from the environment (read when the pool opens). */
function connectionBounds() {
  const statementMs = env.dbStatementTimeoutMs;
  return {
    statementMs,
    idleInTransactionMs: env.dbIdleInTransactionMs,
    noAnswerMs: statementMs + 5_000,
    /** When a connection first drops its cached query plans (DISCARD PLANS, refreshPlans); 0 = never. */
    planRefreshMs: env.dbPlanRefreshMs,
  };
}

/** Removes the listeners freeClientsThatDie put on a checked-out connection. */
const DETACH = Symbol("rts.detach");
type HookedClient = PoolClient & { [DETACH]?: () => void };

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
      // The server may end a checked-out connection between statements (an idle transaction past
      // its bound): its error then has no query to go to, and pg would throw it from the client.
      // The "end" that follows releases the connection.
      const onError = () => {};
      client.once("end", onEnd);
      client.on("error", onError);
      client[DETACH] = () => {
        client.removeListener("end", onEnd);
        client.removeListener("error", onError);
        delete client[DETACH];
      };
    });
  });
  pool.on("release", (_err: Error | undefined, c: unknown) => (c as HookedClient)[DETACH]?.());
}

/**
 * Query plans cached by a connection are dropped (DISCARD PLANS) at checkout, so that they follow
 * the tables' growth: first `firstMs` after the connection opened, then at intervals that double
 * up to 64 × that (2 s, 4 s … about 2 minutes with the default). A backend keeps its plans of
 * prepared statements, foreign-key checks and trigger statements until something invalidates
 * them; ANALYZE does, so with autovacuum on a plan is remade once its table has grown enough.
 * Without it (a server with autovacuum off, or before autovacuum gets round to a table), a plan
 * made when the table was tiny stays: measured, the foreign-key checks of a worker that started
 * on a fresh database read Participant, Referral and Reward by sequential scan, one per check,
 * and its drain fell to 240 events/s as those tables grew (docs/reliability.md). Tables grow
 * fastest relative to their size when they are young, hence the doubling: early refreshes while
 * a fresh database fills, next to none in a long drain (a refresh every 2 s measured a few per
 * cent slower). The statement goes ahead of the caller's first one, in the connection's queue.
 */
function refreshPlans(pool: Pool, firstMs: number) {
  if (firstMs <= 0) return;
  const due = new WeakMap<object, { at: number; every: number }>();
  pool.on("connect", (c) => void due.set(c, { at: Date.now() + firstMs, every: firstMs }));
  pool.on("acquire", (c) => {
    const d = due.get(c);
    const now = Date.now();
    if (!d || now < d.at) return;
    d.every = Math.min(64 * firstMs, 2 * d.every);
    d.at = now + d.every;
    c.query("DISCARD PLANS").catch(() => undefined); // a dead connection fails its caller's statement too
  });
}

/**
 * The app's pool of PostgreSQL connections: each one in UTC, under the bounds above (server-side
 * statement and idle-in-transaction timeouts, the no-answer bound), its plans refreshed, and
 * released from the pool if it dies while checked out. Exported for tests of those bounds.
 */
export async function openAppPool(url: string, max: number, bounds: ConnectionBounds): Promise<Pool> {
  const pg = await import("pg");
  class BoundedClient extends pg.default.Client {
    constructor(config?: ConstructorParameters<typeof pg.default.Client>[0]) {
      super({ ...(typeof config === "string" ? { connectionString: config } : config), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    }
    override query(...args: unknown[]): never {
      // The direct channel's handshake (directSql): the statement names the transaction's token.
      const [config, values] = args as [{ text?: unknown } | string, unknown[] | undefined];
      if (typeof config === "object" && config?.text === DIRECT_HANDSHAKE) {
        const token = (values ?? (config as { values?: unknown[] }).values)?.[0];
        if (typeof token === "string") directChannels.set(token, this);
      }
      // No answer within the bound: the server is gone or the socket half-open (a live server
      // cancels the statement first, statement_timeout). The connection is destroyed, so that no
      // statement queued behind this one (a ROLLBACK) can be dropped while its transaction
      // lives on: every query on it fails, and the pool lets it go (freeClientsThatDie).
      const timer = setTimeout(() => (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy(), bounds.noAnswerMs);
      timer.unref();
      const answered = () => clearTimeout(timer);
      const cb = args.findIndex((a) => typeof a === "function");
      if (cb >= 0) {
        const callback = args[cb] as (...r: unknown[]) => void;
        args[cb] = (...r: unknown[]) => {
          answered();
          callback(...r);
        };
      }
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (cb < 0) {
        if (result && typeof (result as Promise<unknown>).then === "function") (result as Promise<unknown>).then(answered, answered);
        else answered(); // a submittable (not used here) answers through its own events
      }
      return result as never;
    }
  }
  const appPool = new pg.default.Pool({
    connectionString: url,
    max,
    options: UTC_SESSION,
    connectionTimeoutMillis: QUEUE_WAIT_MS,
    keepAlive: true,
    statement_timeout: bounds.statementMs,
    idle_in_transaction_session_timeout: bounds.idleInTransactionMs,
    Client: BoundedClient,
  });
  freeClientsThatDie(appPool);
  refreshPlans(appPool, bounds.planRefreshMs);
  return appPool;
}

async function openPostgres(url: string): Promise<Opened> {
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const pg = await import("pg");
  const pool = new pg.default.Pool({ connectionString: url, max: 1, options: UTC_SESSION });
  const runner: SqlRunner = {
    query: (sql, params) => pool.query(sql, params),
    exec: async (sql) => void (await pool.query(sql)),
  };
  const appPool = await openAppPool(url, Number(process.env.DATABASE_POOL_SIZE ?? 10), connectionBounds());
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
  get: (_t, prop) =>
    prop === "$transaction"
      ? withTxHook(state().client as unknown as Parameters<typeof withTxHook>[0])
      : (state().client as unknown as Record<PropertyKey, unknown>)[prop],
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
