// Per unit test file: an empty migrated database, so files never see each other's rows and need
// no clean-up. The unit project runs with `isolate: false` (vitest.config.ts): a worker process
// runs many files one after the other and keeps its module cache, so this file (re-run before
// every test file) also undoes what a previous file may have left in the process.
//   PGlite (default): one in-memory PGlite per worker process, loaded once from the run's dump
//     (unit-global-setup.ts; a load costs about 2 s), then emptied before each later file:
//     every table but _prisma_migrations and Installation (what a process reads once, when it opens
//     the database) truncated (identities restarted), session settings
//     (say a file's SET TimeZone) put back. A file that changed the schema (say, dropped a
//     constraint) gets a fresh copy of the dump instead.
//   PostgreSQL (TEST_DB=postgres): a database cloned from the run's migrated template per file,
//     dropped after it.
import { readFileSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, inject } from "vitest";
import pg from "pg";
import { adminPgUrl } from "./database";

interface WorkerState {
  /** process.env as the worker started, before any test file ran. */
  env: Record<string, string | undefined>;
  pglite?: PGlite;
  /** Catalog fingerprint of the migrated schema, to notice a file that altered it. */
  schema?: string;
  tables?: string[];
  /** Session settings as loaded (PGlite sets some, search_path among them, after its start). */
  settings?: string;
}

const g = globalThis as unknown as { __rtsUnit?: WorkerState; __rtsSdkLimiter?: unknown; __rtsJobDispatcher?: unknown };
const worker = (g.__rtsUnit ??= { env: { ...process.env } });

// Environment overrides a previous file made (say RATE_LIMIT_* at the top of a fuzz file) end
// with that file, as when each file had its own process; the rate limiter, built once per
// process from them, is rebuilt on first use. (Vitest's own VITEST_* variables are its business.)
for (const k of Object.keys(process.env)) if (!(k in worker.env) && !k.startsWith("VITEST")) delete process.env[k];
for (const [k, v] of Object.entries(worker.env)) if (!k.startsWith("VITEST") && process.env[k] !== v) process.env[k] = v;
delete g.__rtsSdkLimiter;
delete g.__rtsJobDispatcher;

// Domain code must not reach a chain from this layer: point the TEST chain nowhere.
process.env.CHAIN_RPC_URL_TEST = "http://127.0.0.1:9";
// The tests' webhook receivers listen on loopback.
process.env.WEBHOOK_ALLOW_LOOPBACK = "1";
delete process.env.CHAIN_RPC_URL;

const template = inject("unitTemplateUrl");
if (template) {
  const u = new URL(template);
  const name = `rts_unit_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new URL(adminPgUrl());
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`CREATE DATABASE ${name} TEMPLATE ${u.pathname.slice(1)}`);
  await client.end();
  u.pathname = `/${name}`;
  process.env.DATABASE_URL = u.toString();
  afterAll(async () => {
    const { closeDb } = await import("../../server/db/client");
    await closeDb();
    const c = new pg.Client({ connectionString: admin.toString() });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
} else {
  delete process.env.DATABASE_URL;
  process.env.PGLITE_DIR = "memory://";
  if (!(worker.pglite && !worker.pglite.closed && (await emptied(worker.pglite)))) await loadDump();
}

/** Empties the worker's database for this file; false when its schema is no longer the migrated one. */
async function emptied(db: PGlite): Promise<boolean> {
  if ((await schemaFingerprint(db)) !== worker.schema) return false;
  await db.query(`SELECT set_config(b.name, b.setting, false) FROM json_to_recordset($1::json) AS b(name text, setting text) JOIN pg_settings s USING (name) WHERE s.setting IS DISTINCT FROM b.setting`, [worker.settings]);
  await db.exec(`TRUNCATE ${worker.tables!.map((t) => `"${t}"`).join(", ")} RESTART IDENTITY CASCADE`);
  return true;
}

/** A fresh copy of the migrated database from the run's dump, behind `db`. */
async function loadDump() {
  const { PGlite } = await import("@electric-sql/pglite");
  const { attachPglite, closeDb } = await import("../../server/db/client");
  await closeDb();
  const db = await PGlite.create({ loadDataDir: new Blob([readFileSync(inject("unitPgliteDump"))]) });
  await attachPglite(db);
  worker.pglite = db;
  worker.schema = await schemaFingerprint(db);
  worker.settings = (await db.query<{ s: string }>(`SELECT json_agg(json_build_object('name', name, 'setting', setting))::text AS s FROM pg_settings WHERE context IN ('user', 'superuser')`)).rows[0].s;
  worker.tables = (await db.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('_prisma_migrations', 'Installation') ORDER BY 1`)).rows.map((r) => r.t);
}

/** Tables, columns, constraints, indexes, triggers and functions of the public schema, hashed. */
async function schemaFingerprint(db: PGlite): Promise<string> {
  const { rows } = await db.query<{ h: string }>(`
    SELECT md5(concat_ws('|',
      (SELECT string_agg(c.relname || ':' || c.relkind::text, ',' ORDER BY c.relname) FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace),
      (SELECT string_agg(c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ',' ORDER BY c.relname, a.attnum)
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped),
      (SELECT string_agg(conrelid::regclass || '.' || conname || ':' || pg_get_constraintdef(oid), ',' ORDER BY conrelid::regclass::text, conname) FROM pg_constraint WHERE connamespace = 'public'::regnamespace),
      (SELECT string_agg(indexdef, ',' ORDER BY indexname) FROM pg_indexes WHERE schemaname = 'public'),
      (SELECT string_agg(tgrelid::regclass || '.' || tgname, ',' ORDER BY tgrelid::regclass::text, tgname) FROM pg_trigger WHERE NOT tgisinternal),
      (SELECT string_agg(p.oid::regprocedure || ':' || md5(p.prosrc), ',' ORDER BY p.oid::regprocedure::text) FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace)
    )) AS h`);
  return rows[0].h;
}
