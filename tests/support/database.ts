// Picks the suite's database. TEST_DB=postgres creates a fresh database on the local server
// (TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres) and migrates it.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { applyMigrations } from "../../server/db/migrate";

/**
 * A fresh PGlite directory, for apps that must not share the suite's database: a copy of the
 * run's migrated template (RTS_PGLITE_TEMPLATE, set by the http layer's global setup) when there
 * is one, so that the app starts without replaying every migration (most of a PGlite app's
 * start-up CPU); else empty, migrated by the app as it starts.
 */
export function tempPgliteDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rts-pglite-"));
  const template = process.env.RTS_PGLITE_TEMPLATE;
  if (template && existsSync(template)) cpSync(template, dir, { recursive: true });
  return dir;
}

/** A hash of the migrations and the PGlite version: the key of the cached migrated databases. */
export function migrationsKey(): string {
  const root = path.resolve(import.meta.dirname, "..", "..");
  const migrations = path.join(root, "prisma", "migrations");
  const h = createHash("sha256");
  h.update(JSON.parse(readFileSync(path.join(root, "node_modules", "@electric-sql", "pglite", "package.json"), "utf8")).version);
  for (const dir of readdirSync(migrations).sort()) {
    const sql = path.join(migrations, dir, "migration.sql");
    if (existsSync(sql)) h.update(dir).update(readFileSync(sql));
  }
  return h.digest("hex").slice(0, 16);
}

/**
 * A migrated PGlite data directory, built once per migrations and PGlite version under
 * node_modules/.cache/rts-pglite/<key>/data (older keys removed), for tempPgliteDir to copy.
 */
export async function migratedPgliteTemplate(): Promise<string> {
  const cache = path.resolve(import.meta.dirname, "..", "..", "node_modules", ".cache", "rts-pglite");
  const dir = path.join(cache, migrationsKey(), "data");
  if (existsSync(dir)) return dir;
  const building = mkdtempSync(path.join(os.tmpdir(), "rts-pglite-template-"));
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create(building);
  await applyMigrations({ query: (s, p) => db.query(s, p) as never, exec: async (s) => void (await db.exec(s)) });
  await db.close();
  if (existsSync(cache)) for (const old of readdirSync(cache)) rmSync(path.join(cache, old), { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  // Copied aside then renamed: a concurrent run never copies half a directory.
  cpSync(building, `${dir}.${process.pid}`, { recursive: true });
  rmSync(building, { recursive: true, force: true });
  if (existsSync(dir)) rmSync(`${dir}.${process.pid}`, { recursive: true, force: true });
  else renameSync(`${dir}.${process.pid}`, dir);
  return dir;
}

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
  if (testDbKind() !== "postgres") {
    const dir = tempPgliteDir();
    return { env: { PGLITE_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
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
