// Shared by start.mjs and test.mjs: make a fresh clone runnable with nothing but Node + npm.
// Installs dependencies from the lockfile, generates the Prisma client and builds the app.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
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
  ensureChainBinding();
}

/** EDR's platform package for this machine, named as @nomicfoundation/edr's own loader names it. */
function edrBindingName() {
  const { platform, arch } = process;
  if (platform === "darwin") return `edr-darwin-${arch}`;
  if (platform === "win32") return `edr-win32-${arch}-msvc`;
  if (platform === "linux") {
    let musl;
    try {
      musl = readFileSync("/usr/bin/ldd", "utf8").includes("musl");
    } catch {
      musl = !process.report?.getReport?.()?.header?.glibcVersionRuntime;
    }
    return `edr-linux-${arch}-${musl ? "musl" : "gnu"}`;
  }
  return `edr-${platform}-${arch}`;
}

/**
 * The local TEST chain runs on EDR, whose native code ships as one optional dependency per
 * platform (`@nomicfoundation/edr-<platform>`); npm installs the one that fits. Those packages
 * declare `engines: node >= 22`, so npm skips them as optional dependencies on Node 20: there
 * this installs the same package (the version @nomicfoundation/edr pins) without saving it.
 * Returns a reason when no binding fits this platform (the chain cannot start here), else null.
 */
export function ensureChainBinding() {
  const req = createRequire(path.join(root, "package.json"));
  let edrPkg;
  try {
    // Its "exports" hide package.json: read it next to the resolved entry point.
    edrPkg = JSON.parse(readFileSync(path.join(path.dirname(req.resolve("@nomicfoundation/edr")), "package.json"), "utf8"));
  } catch {
    return "hardhat's @nomicfoundation/edr is not installed";
  }
  const name = edrBindingName();
  const version = edrPkg.optionalDependencies?.[`@nomicfoundation/${name}`];
  if (!version) {
    return `EDR ships no native binding for ${process.platform}-${process.arch} (${Object.keys(edrPkg.optionalDependencies ?? {}).join(", ")})`;
  }
  if (existsSync(path.join(root, "node_modules", "@nomicfoundation", name, "package.json"))) return null;
  try {
    req.resolve(`@nomicfoundation/${name}`);
    return null;
  } catch {
    /* not installed: below */
  }
  console.log(`▸ Installing EDR's native binding @nomicfoundation/${name}@${version} (npm skips it as an optional dependency on Node ${process.versions.node})…`);
  const r = spawnSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", `@nomicfoundation/${name}@${version}`], { stdio: "inherit", cwd: root });
  return r.status === 0 ? null : `npm could not install @nomicfoundation/${name}@${version}`;
}

function newest(dir) {
  let t = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    // Tests are not part of the build: editing one must not trigger a rebuild.
    if (e.name === "node_modules" || e.name.startsWith(".") || /\.test\.tsx?$/.test(e.name)) continue;
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
