// Shared by start.mjs and test.mjs: make a fresh clone runnable with nothing but Node + npm.
// Installs dependencies from the lockfile, generates the Prisma client and builds the app.
// `quiet` steps print one line each ("▸ what… done in N s") and show their tools' output only
// when they fail: a newcomer's first start reads as progress, not as a wall of warnings.
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

/** "1 min 05 s" / "12 s": how long a step took, for a person. */
export function took(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

/**
 * Runs a step with its output captured: one line while it runs and when it ends; the captured
 * output only if it fails (then the process exits with its code). Returns the exit status when
 * `allowFailure` (the caller has a fallback), else exits on failure.
 */
function quietly(label, cmd, args, { env, allowFailure = false } = {}) {
  process.stdout.write(`▸ ${label}… `);
  const t = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, env: { ...process.env, ...env }, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.status === 0) {
    console.log(`done in ${took(Date.now() - t)}`);
    return 0;
  }
  console.log(`failed after ${took(Date.now() - t)}`);
  if (allowFailure) return r.status ?? 1;
  process.stdout.write(r.stdout ?? "");
  process.stderr.write(r.stderr ?? "");
  console.error(`\n✖ ${cmd} ${args.join(" ")} failed (exit ${r.status ?? r.signal})`);
  process.exit(r.status ?? 1);
}

const NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error"];
/** The development tools (tests, lint) are installed: a production start installs without them. */
const hasDevTools = () => existsSync(path.join(root, "node_modules", "vitest", "package.json"));

/**
 * Installs the lockfile's packages when they are missing. `dev: false` (a production start)
 * installs only what the app needs to build and run; `dev: true` (tests, benches) also the
 * development tools, installing the whole lockfile again when a production start came first.
 */
export function ensureDependencies({ dev = true } = {}) {
  const installed = existsSync(path.join(root, "node_modules", ".package-lock.json"));
  if (!installed || (dev && !hasDevTools())) {
    const omit = dev ? [] : ["--omit=dev"];
    const label = dev ? "Installing dependencies with the development tools (npm ci)" : "Installing dependencies (npm ci --omit=dev)";
    // npm ci refuses a lockfile that lacks other platforms' optional packages (some registries
    // serve only this platform's builds); npm install then installs the same pinned versions.
    if (quietly(label, "npm", ["ci", ...omit, ...NPM_QUIET], { allowFailure: true }) !== 0) {
      quietly("Installing dependencies (npm install, from the same lockfile)", "npm", ["install", ...omit, ...NPM_QUIET]);
    }
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
  const status = quietly(`Installing the local chain's native binding (npm skips it as an optional dependency on Node ${process.versions.node})`, "npm", ["install", "--no-save", ...NPM_QUIET, `@nomicfoundation/${name}@${version}`], { allowFailure: true });
  return status === 0 ? null : `npm could not install @nomicfoundation/${name}@${version}`;
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
  // The CLI needs some DATABASE_URL to stay on its WASM engine; the value is not used here.
  quietly("Generating the database client (prisma generate)", "npx", ["prisma", "generate", "--no-hints"], {
    env: { DATABASE_URL: process.env.DATABASE_URL || "postgresql://pglite@localhost/pglite" },
  });
}

/** Whether the production bundle is missing or older than the sources. */
export function buildIsStale() {
  const id = path.join(root, process.env.NEXT_DIST_DIR || ".next", "BUILD_ID");
  const src = Math.max(...["app", "server", "components", "prisma"].map((d) => newest(path.join(root, d))));
  return !existsSync(id) || statSync(id).mtimeMs < src;
}

/** Builds the production bundle when it is stale; `quiet`: one line, the build's output only if it fails. */
export function ensureBuild({ force = false, quiet = false, env } = {}) {
  if (!force && !buildIsStale()) return;
  if (quiet) quietly("Building the app (next build)", "npx", ["next", "build"], { env });
  else {
    console.log("▸ Building the app (next build)…");
    run("npx", ["next", "build"], { env });
  }
}
