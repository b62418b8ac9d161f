// Once per unit-layer run: a migrated database that every test file copies.
//   PGlite (default): migrate an in-memory PGlite once and dump its data directory to a file;
//     each worker process loads that dump once (about 2 s, no migrations to replay) and
//     empties it between files (unit-setup.ts). The dump is
//     kept in node_modules/.cache/rts-unit/, keyed by the migrations and the PGlite version, so
//     a run (or a single file) after the first one starts without migrating at all.
//   PostgreSQL (TEST_DB=postgres): migrate a template database once; each file clones it with
//     CREATE DATABASE … TEMPLATE (a file copy on the server).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { applyMigrations } from "../../server/db/migrate";
import { createPostgresDatabase, migrationsKey, testDbKind } from "./database";

declare module "vitest" {
  export interface ProvidedContext {
    /** PGlite data-dir dump of a migrated database (unit layer, PGlite). */
    unitPgliteDump: string;
    /** URL of the migrated template database (unit layer, PostgreSQL). */
    unitTemplateUrl: string;
  }
}

export default async function setup(project: TestProject) {
  if (testDbKind() === "postgres") {
    const tpl = await createPostgresDatabase("rts_unit_tpl");
    project.provide("unitTemplateUrl", tpl.url);
    project.provide("unitPgliteDump", "");
    return tpl.drop;
  }
  const file = cachedDumpPath();
  if (!existsSync(file)) {
    const { PGlite } = await import("@electric-sql/pglite");
    const pg = await PGlite.create();
    await applyMigrations({ query: (s, p) => pg.query(s, p) as never, exec: async (s) => void (await pg.exec(s)) });
    const dump = Buffer.from(await (await pg.dumpDataDir("none")).arrayBuffer());
    await pg.close();
    // Written aside then renamed: a concurrent run never loads half a file.
    const cache = path.dirname(path.dirname(file));
    if (existsSync(cache)) for (const old of readdirSync(cache)) rmSync(path.join(cache, old), { recursive: true, force: true });
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.${process.pid}`, dump);
    renameSync(`${file}.${process.pid}`, file);
  }
  project.provide("unitPgliteDump", file);
  project.provide("unitTemplateUrl", "");
}

/** node_modules/.cache/rts-unit/<key of the migrations and the PGlite version>/migrated.tar */
function cachedDumpPath(): string {
  const root = path.resolve(import.meta.dirname, "..", "..");
  return path.join(root, "node_modules", ".cache", "rts-unit", migrationsKey(), "migrated.tar");
}
