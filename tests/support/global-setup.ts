// Once per vitest run: pick the database, start the production build, share its URL.
import type { TestProject } from "vitest/node";
import { startApp, tempPgliteDir, type RunningApp } from "./app";
import { createPostgresDatabase, testDbKind } from "./database";
import { ensureBuild, ensurePrismaClient } from "../../scripts/ensure.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    pgliteDir: string;
  }
}

export default async function setup(project: TestProject) {
  // Integration tests run against the production build; (re)build it when sources changed.
  ensurePrismaClient();
  ensureBuild();
  let app: RunningApp | undefined;
  let drop: (() => Promise<void>) | undefined;
  let databaseUrl = "";
  let pgliteDir = "";
  if (testDbKind() === "postgres") {
    const created = await createPostgresDatabase();
    databaseUrl = created.url;
    drop = created.drop;
  } else {
    pgliteDir = tempPgliteDir();
  }
  app = await startApp(databaseUrl ? { DATABASE_URL: databaseUrl } : { PGLITE_DIR: pgliteDir });
  project.provide("baseUrl", app.url);
  project.provide("databaseUrl", databaseUrl);
  project.provide("pgliteDir", pgliteDir);
  console.log(`[tests] ${testDbKind()} · app at ${app.url}`);
  return async () => {
    await app?.stop();
    await drop?.();
  };
}
