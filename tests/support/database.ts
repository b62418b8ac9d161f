// Picks the suite's database. TEST_DB=postgres creates a fresh database on the local server
// (TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres) and migrates it.
import pg from "pg";
import { applyMigrations } from "../../server/db/migrate";

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
