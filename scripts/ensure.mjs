// Shared by start.mjs and test.mjs: make a fresh clone runnable with nothing but Node + npm.
// Installs dependencies from the lockfile, generates the Prisma client and builds the app.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts, env: { ...process.env, ...opts.env } });
  if (r.status !== 0) {
    console.error(`\n✖ ${cmd} ${args.join(" ")} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

export function ensureDependencies() {
  if (!existsSync(path.join(root, "node_modules", ".package-lock.json"))) {
    console.log("▸ Installing dependencies (npm ci)…");
    // npm ci refuses a lockfile that lacks other platforms' optional packages (some registries
    // serve only this platform's builds); npm install then installs the same pinned versions.
    const ci = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { stdio: "inherit", cwd: root });
    if (ci.status !== 0) run("npm", ["install", "--no-audit", "--no-fund"]);
  }
}

function newest(dir) {
  let t = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

export function ensurePrismaClient() {
  const marker = path.join(root, "server", "db", "generated", "index.js");
  const schema = path.join(root, "prisma", "schema.prisma");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(schema).mtimeMs) return;
  console.log("▸ Generating the Prisma client…");
  // The CLI needs some DATABASE_URL to stay on its WASM engine; the value is not used here.
  run("npx", ["prisma", "generate"], { env: { DATABASE_URL: process.env.DATABASE_URL || "postgresql://pglite@localhost/pglite" } });
}

/** Builds the production bundle when it is missing or older than the sources. */
export function ensureBuild({ force = false } = {}) {
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  const id = path.join(root, distDir, "BUILD_ID");
  const src = Math.max(...["app", "server", "components", "prisma"].map((d) => newest(path.join(root, d))));
  if (!force && existsSync(id) && statSync(id).mtimeMs >= src) return;
  console.log("▸ Building the app (next build)…");
  run("npx", ["next", "build"]);
}
