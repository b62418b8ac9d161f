// The app's pool of PostgreSQL connections (pg), hardened: every connection in UTC, statements
// and idle transactions bounded by the server, a connection that stops answering destroyed, one
// that dies while checked out released, cached plans refreshed as tables grow. client.ts opens it
// and hands it to Prisma's adapter and to the direct channel.
import type PgModule from "pg";
import type { Pool, PoolClient } from "pg";
import { env } from "../shared/env";
import { noteDirectHandshake } from "./direct-sql";

// Every session runs in UTC, whatever the server's or the database's TimeZone setting (a
// startup-packet option outranks ALTER DATABASE/ROLE ... SET TimeZone): timestamp columns hold
// UTC wall-clock values, so now(), CURRENT_TIMESTAMP defaults and date arithmetic must be UTC
// too. Raw SQL also compares with (now() AT TIME ZONE 'UTC'), which is right in any session.
export const UTC_SESSION = "-c TimeZone=UTC";

// Bounds on every connection of the app's pool. Both waits that can be long are bounded, and
// where the bound is enforced matters:
// - A statement gets at most DATABASE_STATEMENT_TIMEOUT_MS (20 s), enforced by the server
//   (statement_timeout, lock waits included): the statement is cancelled, its transaction fails,
//   and the ROLLBACK that follows runs at once. A bound kept only in the client (pg's
//   query_timeout) leaves the statement running; the ROLLBACK queued behind it can be dropped
//   unsent, and the connection then sits idle in its transaction holding the pool lock.
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
export const QUEUE_WAIT_MS = 15_000;

export type ConnectionBounds = ReturnType<typeof connectionBounds>;

/** The server-side bounds and the client's, from the environment (read when the pool opens). */
export function connectionBounds() {
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
 * every request waits for a connection forever (bench/faults.ts, docs/reliability.md).
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
 * up to 64 × that. Without ANALYZE (autovacuum off, or not yet round to a table) a plan made when
 * a table was tiny stays, e.g. foreign-key checks by sequential scan (docs/reliability.md).
 * Young tables grow fastest relative to their size, hence the doubling: early refreshes while a
 * fresh database fills, next to none in a long drain. The statement goes ahead of the caller's
 * first one, in the connection's queue.
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
      noteDirectHandshake(this, args); // the direct channel finds its connection (direct-sql.ts)
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

/** pg's type parsers, with timestamp(3) columns (UTC wall-clock time) read as UTC, as Prisma does. */
export function utcTypeParsers(pg: { default: typeof PgModule }) {
  return { getTypeParser: (oid: number, format?: string) => (oid === 1114 ? (v: string) => new Date(`${v.replace(" ", "T")}Z`) : pg.default.types.getTypeParser(oid, format as "text")) };
}
