#!/usr/bin/env node
// `npm start`: runs the product on its embedded defaults on a fresh clone: installs what a
// production start needs (not the development tools), generates the database client, builds
// (the type check belongs to `npm test`), brings up the local TEST chain, and serves the app
// (PGlite under .data/, in-process job runner). `npm run dev` does the same with `next dev`.
// Each step prints one line; a tool's own output shows only when it fails.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { buildIsStale, ensureBuild, ensureDependencies, ensurePrismaClient, root, took } from "./ensure.mjs";
import { loadSecrets, SECRETS_FILE } from "./secrets.mjs";

const dev = process.argv.includes("--dev");
const started = Date.now();
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`✖ Node.js ${process.versions.node} is too old: this app needs Node.js 20.19 or newer (24 LTS recommended).`);
  process.exit(1);
}
const firstStart = !existsSync(path.join(root, "node_modules", ".package-lock.json")) || (!dev && buildIsStale());
if (firstStart) {
  console.log("▸ First start: installing and building take about 3 to 4 minutes on a quiet 2-core machine; later starts take seconds.");
}
ensureDependencies({ dev });
ensurePrismaClient();
// `npm test` type-checks the whole tree; the start's build does not repeat it.
if (!dev) ensureBuild({ quiet: true, env: { NEXT_SKIP_TYPECHECK: "1" } });

// BETTER_AUTH_SECRET and WEBHOOK_SECRET_KEY, when not configured: generated once into
// .data/secrets.json and given to the server (and to workers started from this clone).
const freshSecrets = !existsSync(SECRETS_FILE);
const generated = loadSecrets();
if (generated.length && freshSecrets) console.log(`▸ Generated ${generated.join(" and ")} into .data/secrets.json (keep that file with the database)`);

const port = process.env.PORT || "3000";
const children = [];
const { startLocalChain } = await import("./local-chain.mjs").catch(() => ({ startLocalChain: null }));
if (startLocalChain && !process.env.CHAIN_RPC_URL_TEST && process.env.LOCAL_CHAIN !== "0") {
  const chain = await startLocalChain();
  if (chain) children.push(chain);
}

// Spawn the server directly (not through npx) so that signals reach it.
const app = spawn(process.execPath, [path.join(root, "scripts", "serve.mjs"), ...(dev ? ["--dev"] : []), "-p", port], { cwd: root, stdio: "inherit", env: process.env });
children.push(app);
const stop = (sig) => {
  for (const c of children) c.kill(sig);
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
app.on("exit", (code) => {
  stop("SIGTERM");
  process.exit(code ?? 0);
});

// The addresses, once the dashboard answers: the last lines a newcomer reads.
const base = `http://localhost:${port}`;
for (;;) {
  const up = await fetch(`${base}/sign-in`, { redirect: "manual" }).then((r) => r.status < 500, () => false);
  if (up) break;
  await new Promise((r) => setTimeout(r, 250));
}
console.log(`\n✓ Ready in ${took(Date.now() - started)}.`);
console.log(`  Dashboard: ${base}/dashboard   (sign up at ${base}/sign-up)`);
console.log(`  API: ${base}   OpenAPI: ${base}/api/openapi.json`);
console.log("  Stop with Ctrl-C.\n");
