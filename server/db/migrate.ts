// Applies prisma/migrations/*/migration.sql in order, recording each in Prisma's own
// `_prisma_migrations` table (so `prisma migrate status` agrees). Used on start for PGlite and
// by `npm run db:migrate` for PostgreSQL. Prisma's WASM schema engine cannot introspect through
// @prisma/adapter-pg 6.x ("Column type 'name' could not be deserialized"), hence this runner.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export interface SqlRunner {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  exec(sql: string): Promise<void>;
}

const TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

function migrationsDir() {
  return path.join(process.cwd(), "prisma", "migrations");
}

export async function applyMigrations(db: SqlRunner, dir = migrationsDir()): Promise<string[]> {
  if (!existsSync(/*turbopackIgnore: true*/ dir)) throw new Error(`Migrations folder not found: ${dir}`);
  await db.exec(TABLE);
  // Serialise concurrent starters on PostgreSQL; PGlite is single-connection anyway.
  await db.query("SELECT pg_advisory_lock(727274)");
  try {
    const done = new Set(
      (await db.query(`SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`)).rows.map(
        (r) => String(r.migration_name),
      ),
    );
    const applied: string[] = [];
    const names = readdirSync(/*turbopackIgnore: true*/ dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    for (const name of names) {
      if (done.has(name)) continue;
      const sql = readFileSync(/*turbopackIgnore: true*/ path.join(dir, name, "migration.sql"), "utf8");
      const checksum = createHash("sha256").update(sql).digest("hex");
      await db.exec(`BEGIN;\n${sql}\n;COMMIT;`);
      await db.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
        [randomUUID(), checksum, name],
      );
      applied.push(name);
    }
    return applied;
  } finally {
    await db.query("SELECT pg_advisory_unlock(727274)");
  }
}
