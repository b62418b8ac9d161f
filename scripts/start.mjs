#!/usr/bin/env node
// `npm start`: runs the product on its embedded defaults on a fresh clone: installs what it
// needs, builds, brings up the local TEST chain, and serves the app (PGlite under .data/,
// in-process job runner). `npm run dev` does the same with `next dev`.
import { spawn } from "node:child_process";
import path from "node:path";
import { ensureBuild, ensureDependencies, ensurePrismaClient, root } from "./ensure.mjs";

const dev = process.argv.includes("--dev");
ensureDependencies();
ensurePrismaClient();
if (!dev) ensureBuild();

const port = process.env.PORT || "3000";
const children = [];
const { startLocalChain } = await import("./local-chain.mjs").catch(() => ({ startLocalChain: null }));
if (startLocalChain && !process.env.CHAIN_RPC_URL_TEST && process.env.LOCAL_CHAIN !== "0") {
  const chain = await startLocalChain();
  if (chain) children.push(chain);
}

// Spawn Next directly (not through npx) so that signals reach it.
const nextBin = path.join(root, "node_modules", ".bin", "next");
const app = spawn(nextBin, [dev ? "dev" : "start", "-p", port], { cwd: root, stdio: "inherit", env: process.env });
children.push(app);
console.log(`\n▸ Dashboard: http://localhost:${port}/dashboard   API: http://localhost:${port}   OpenAPI: http://localhost:${port}/api/openapi.json\n`);
const stop = (sig) => {
  for (const c of children) c.kill(sig);
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
app.on("exit", (code) => {
  stop("SIGTERM");
  process.exit(code ?? 0);
});
