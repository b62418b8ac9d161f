#!/usr/bin/env node
// Playwright's webServer: the production build on a fresh PGlite database, with its own local
// TEST chain (when the project has one) on a free port, so e2e runs never touch .data/ or
// another run's chain. Stops its children when Playwright stops it.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ensureBuild, ensurePrismaClient, root } from "../scripts/ensure.mjs";

const port = process.env.E2E_PORT;
if (!port) throw new Error("E2E_PORT is required (set by playwright.config.ts)");

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port: p } = s.address();
      s.close(() => resolve(p));
    });
  });
}

ensurePrismaClient();
ensureBuild();

const children = [];
const env = {
  ...process.env,
  NODE_ENV: "production",
  PORT: String(port),
  APP_URL: `http://127.0.0.1:${port}`,
  AUTH_RATE_LIMIT: "0",
  // The specs' webhook receivers listen on loopback.
  WEBHOOK_ALLOW_LOOPBACK: "1",
  // The run a withdrawal request starts waits its longest: the withdrawal spec shows the request
  // waiting in the staff's queue, then pays it by hand.
  WITHDRAWAL_RUN_DELAY_MS: "60000",
  PGLITE_DIR: process.env.E2E_PGLITE_DIR || mkdtempSync(path.join(os.tmpdir(), "rts-e2e-pglite-")),
};
// A directory made here is removed once the app has exited.
const ownDir = process.env.E2E_PGLITE_DIR ? null : env.PGLITE_DIR;
if (!env.CHAIN_RPC_URL_TEST && existsSync(path.join(root, "scripts", "local-chain.mjs"))) {
  const { startLocalChain } = await import("../scripts/local-chain.mjs");
  const chainPort = await freePort();
  const chain = await startLocalChain({ port: chainPort, reuse: false, log: "ignore" });
  if (chain) children.push(chain);
  env.CHAIN_RPC_URL_TEST = `http://127.0.0.1:${chainPort}`;
}
const app = spawn(process.execPath, [path.join(root, "scripts", "serve.mjs"), "-p", String(port), "-H", "127.0.0.1"], { cwd: root, env, stdio: "inherit" });
children.push(app);
const stop = (sig) => children.forEach((c) => c.exitCode === null && c.kill(sig));
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("exit", () => stop("SIGTERM"));
app.on("exit", (code) => {
  stop("SIGTERM");
  if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
