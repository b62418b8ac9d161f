// Once per vitest run: pick the database, start the production build, share its URL.
import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { freePort, startApp, type RunningApp } from "./app";
import { createPostgresDatabase, migratedPgliteTemplate, tempPgliteDir, testDbKind } from "./database";
import { ensureBuild, ensurePrismaClient } from "../../scripts/ensure.mjs";
import { startLocalChain } from "../../scripts/local-chain.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    pgliteDir: string;
    /** JSON-RPC URL of the run's TEST chain (a real local Hardhat 3 / EDR node). */
    chainRpcUrl: string;
    /** PGlite runs: the migrated directory that tempPgliteDir copies (RTS_PGLITE_TEMPLATE). */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  // Integration tests run against the production build; (re)build it when sources changed.
  ensurePrismaClient();
  ensureBuild();
  let drop: (() => Promise<void>) | undefined;
  let databaseUrl = "";
  let pgliteDir = "";
  if (testDbKind() === "postgres") {
    const created = await createPostgresDatabase();
    databaseUrl = created.url;
    drop = created.drop;
  } else {
    // Every PGlite app of the run (this one, and those tests start) copies one migrated directory.
    process.env.RTS_PGLITE_TEMPLATE = await migratedPgliteTemplate();
    pgliteDir = tempPgliteDir();
  }
  // The run's own TEST chain on a free port (CHAIN_RPC_URL_TEST given → use that node instead).
  const chainPort = process.env.CHAIN_RPC_URL_TEST ? 0 : await freePort();
  const chainRpcUrl = process.env.CHAIN_RPC_URL_TEST || `http://127.0.0.1:${chainPort}`;
  const chain = chainPort ? await startLocalChain({ port: chainPort, reuse: false, log: "ignore" }) : null;
  const app: RunningApp = await startApp({ ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { PGLITE_DIR: pgliteDir }), CHAIN_RPC_URL_TEST: chainRpcUrl });
  project.provide("baseUrl", app.url);
  project.provide("databaseUrl", databaseUrl);
  project.provide("pgliteDir", pgliteDir);
  project.provide("chainRpcUrl", chainRpcUrl);
  project.provide("pgliteTemplate", process.env.RTS_PGLITE_TEMPLATE ?? "");
  console.log(`[tests] ${testDbKind()} · app at ${app.url}`);
  return async () => {
    await app.stop();
    chain?.kill("SIGTERM");
    await drop?.();
    if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
  };
}
