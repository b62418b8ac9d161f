// Per unit test file: its own migrated database, copied from the run's template (see
// unit-global-setup.ts), so files never see each other's rows and need no clean-up.
import { readFileSync } from "node:fs";
import { afterAll, inject } from "vitest";
import pg from "pg";
import { adminPgUrl } from "./database";

// Domain code must not reach a chain from this layer: point the TEST chain nowhere.
process.env.CHAIN_RPC_URL_TEST = "http://127.0.0.1:9";
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
  const { PGlite } = await import("@electric-sql/pglite");
  const { attachPglite, closeDb } = await import("../../server/db/client");
  const dump = new Blob([readFileSync(inject("unitPgliteDump"))]);
  await attachPglite(await PGlite.create({ loadDataDir: dump }));
  afterAll(() => closeDb());
}
