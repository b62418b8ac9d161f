// Picks the suite's database. TEST_DB=postgres creates a fresh database on the local server
// (TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres) and migrates it.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { applyMigrations } from "../../server/db/migrate";

/** A fresh PGlite directory, for apps that must not share the suite's database. */
export const tempPgliteDir = () => mkdtempSync(path.join(os.tmpdir(), "rts-pglite-"));

export const testDbKind = (): "pglite" | "postgres" => (process.env.TEST_DB === "postgres" ? "postgres" : "pglite");

export const adminPgUrl = () => process.env.TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export async function createPostgresDatabase(prefix = "rts_test"): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = adminPgUrl();
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const adminPool = new pg.Pool({ connectionString: admin, max: 1 });
  try {
    await adminPool.query(`CREATE DATABASE ${name}`);
  } catch (e) {
    await adminPool.end();
    throw new Error(`PostgreSQL is unreachable at ${admin} (TEST_DB=postgres): ${(e as Error).message}`, { cause: e });
  }
  const u = new URL(admin);
  u.pathname = `/${name}`;
  const url = u.toString();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await applyMigrations({ query: (s, p) => pool.query(s, p), exec: async (s) => void (await pool.query(s)) });
  await pool.end();
  return {
    url,
    drop: async () => {
      await adminPool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await adminPool.end();
    },
  };
}

/**
 * A database of the run's kind that nothing else uses, for an app a test starts, kills and
 * restarts on the same data: `env` (DATABASE_URL or PGLITE_DIR) for startApp; `drop` removes it.
 */
export async function ownDatabase(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (testDbKind() !== "postgres") return { env: { PGLITE_DIR: tempPgliteDir() }, drop: async () => {} };
  const created = await createPostgresDatabase();
  return { env: { DATABASE_URL: created.url }, drop: created.drop };
}

export type Sql = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** Direct SQL on an app's own database while the app is down (PGlite allows one process at a time). */
export async function withDatabase<T>(dbEnv: Record<string, string>, fn: (sql: Sql) => Promise<T>): Promise<T> {
  if (dbEnv.DATABASE_URL) {
    const client = new pg.Client({ connectionString: dbEnv.DATABASE_URL });
    client.on("error", () => {}); // the database may be dropped (FORCE) while this client lingers
    await client.connect();
    try {
      return await fn(async (t, p) => (await client.query(t, p)).rows);
    } finally {
      await client.end();
    }
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create(dbEnv.PGLITE_DIR);
  try {
    return await fn(async (t, p) => (await db.query<Record<string, unknown>>(t, p)).rows);
  } finally {
    await db.close();
  }
}
