// The Prisma client factory: PGlite (file-backed, under .data/) when DATABASE_URL is unset,
// PostgreSQL through @prisma/adapter-pg when it is set. One client per process, migrations
// applied before the first query.
import { mkdirSync } from "node:fs";
import { env } from "../shared/env";
import { applyMigrations, type SqlRunner } from "./migrate";
import { Prisma, PrismaClient } from "./generated";

export { Prisma };
export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

interface DbState {
  client: PrismaClient;
  ready: Promise<void>;
  kind: "pglite" | "postgres";
  close: () => Promise<void>;
}

const g = globalThis as unknown as { __rtsDb?: DbState };

async function openPglite(dir: string): Promise<{ runner: SqlRunner; adapter: unknown; close: () => Promise<void> }> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  if (dir !== "memory://") mkdirSync(dir, { recursive: true });
  const pg = await PGlite.create(dir === "memory://" ? undefined : dir);
  return {
    runner: {
      query: (sql, params) => pg.query(sql, params) as Promise<{ rows: Record<string, unknown>[] }>,
      exec: async (sql) => void (await pg.exec(sql)),
    },
    adapter: new PrismaPGlite(pg),
    close: () => pg.close(),
  };
}

async function openPostgres(url: string): Promise<{ runner: SqlRunner; adapter: unknown; close: () => Promise<void> }> {
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const pg = await import("pg");
  const pool = new pg.default.Pool({ connectionString: url, max: 1 });
  const runner: SqlRunner = {
    query: (sql, params) => pool.query(sql, params),
    exec: async (sql) => void (await pool.query(sql)),
  };
  const max = Number(process.env.DATABASE_POOL_SIZE ?? 10);
  return { runner, adapter: new PrismaPg({ connectionString: url, max }), close: () => pool.end() };
}

function create(): DbState {
  const kind = env.databaseUrl ? "postgres" : "pglite";
  let closeRaw: () => Promise<void> = async () => {};
  let resolveClient!: (c: PrismaClient) => void;
  const clientPromise = new Promise<PrismaClient>((r) => (resolveClient = r));
  const ready = (async () => {
    const opened = env.databaseUrl ? await openPostgres(env.databaseUrl) : await openPglite(env.pgliteDir);
    closeRaw = opened.close;
    if (kind === "pglite" || process.env.MIGRATE_ON_START === "1") await applyMigrations(opened.runner);
    if (kind === "postgres") await opened.close();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    // Under bursts, transactions queue for a pooled connection (PostgreSQL) or for PGlite's single
    // one; Prisma's 2 s default maxWait would turn that queueing into 500s.
    resolveClient(new PrismaClient({ adapter: opened.adapter as any, transactionOptions: { maxWait: 15_000, timeout: 30_000 } }));
  })();
  // A proxy lets callers use `db` synchronously; every model call awaits readiness first.
  const client = lazyClient(clientPromise);
  return {
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

/** Resolves when the database is open and migrated. */
export const dbReady = () => state().ready;
export const dbKind = () => state().kind;
export async function closeDb() {
  if (!g.__rtsDb) return;
  const s = g.__rtsDb;
  g.__rtsDb = undefined;
  await s.close();
}
