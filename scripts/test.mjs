#!/usr/bin/env node
// `npm test`: every layer of the suite, on a fresh clone (see docs/architecture.md, "Tests").
//  1. lint: ESLint (type-aware) and knip (unused files, exports, dependencies), and the type
//     check (tsc --noEmit) over the whole tree, side by side with the production build;
//  2. (the build is what the HTTP and browser layers run);
//  3. then, side by side: the HTTP layer: the production build (`next start`) and the local chain
//     (vitest project "http"), on PGlite and on PostgreSQL at once; and beside it, one after the
//     other, the unit layer: pure tests without a database (vitest project "pure": the rules core
//     and its property tests), then domain tests in process (vitest project "unit") on PGlite,
//     then its concurrency-sensitive files on PostgreSQL (TEST_PG_URL, default
//     postgres://postgres@127.0.0.1:5432/postgres; UNIT_PG=all for every file); then the browser
//     layer: the dashboard in a real Chromium (Playwright).
// Without a reachable PostgreSQL its runs are skipped with a notice (a failure when CI=true);
// likewise without a Chromium. Ends with one line: "N passed, N failed, N skipped".
//   --only=lint,unit,http,e2e   run some layers;   --db=pglite|postgres   one database only.
import { spawn } from "node:child_process";
import readline from "node:readline";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { ensureBuild, ensureDependencies, ensurePrismaClient, root } from "./ensure.mjs";

const ci = process.env.CI === "true" || process.env.CI === "1";
const arg = (name) => process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = arg("only")?.split(",");
const dbs = arg("db") ? [arg("db")] : ["pglite", "postgres"];
const wants = (layer) => !only || only.includes(layer);

ensureDependencies();
ensurePrismaClient();
const { default: pg } = await import("pg");

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
const reportDir = path.join(root, "test-results");
mkdirSync(reportDir, { recursive: true });
const started = Date.now();
const timings = [];
/** Failed (and flaky) tests, named again at the end: a long run's log is often read from its tail. */
const failedTests = [];

/**
 * Every command of a layer runs in a process group of its own, stopped (the whole group: npx,
 * Vitest and its workers, the app, the chain) when it is still running after TEST_STEP_TIMEOUT_MIN
 * minutes (default 20): a test that never yields the thread (a loop over PGlite, whose queries
 * answer without ever returning to the event loop, so no test timeout fires) then fails its
 * layer with a message instead of holding the whole run until CI gives up on it.
 */
const STEP_CAP_MS = Number(process.env.TEST_STEP_TIMEOUT_MIN ?? 20) * 60_000;
const groups = new Set();
/** Runs a command capped in time; `tag`: its output lines are printed prefixed with it. Resolves to its exit code. */
function capped(label, cmd, args, { env = {}, tag } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: tag ? ["ignore", "pipe", "pipe"] : "inherit", env: { ...process.env, ...env }, detached: true });
    groups.add(child.pid);
    if (tag) for (const stream of [child.stdout, child.stderr]) readline.createInterface({ input: stream }).on("line", (l) => console.log(`[${tag}] ${l}`));
    const timer = setTimeout(() => {
      console.error(`\n✖ ${label}: still running after ${STEP_CAP_MS / 60_000} min (TEST_STEP_TIMEOUT_MIN); stopped with everything it started`);
      killGroup(child.pid);
    }, STEP_CAP_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      groups.delete(child.pid);
      resolve(code);
    });
  });
}
function killGroup(pid) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}
// Interrupted (Ctrl-C, CI cancelling): the layers' process groups go too.
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    for (const pid of groups) killGroup(pid);
    process.exit(130);
  });
}

/** Runs one layer; `tag`: its output lines prefixed (when it runs beside another layer). */
async function step(label, cmd, args, env = {}, tag) {
  console.log(`\n━━ ${label} ━━`);
  const t = Date.now();
  const code = await capped(label, cmd, args, { env, tag });
  timings.push([label, Date.now() - t]);
  return code === 0;
}

/**
 * The unit layer on PostgreSQL: the code whose behaviour depends on real concurrency (PGlite
 * has a single connection, so its transactions never overlap): jobs and their runners, the
 * reward engine, the ledger and pool, payouts, and event intake. The rest of the domain runs on
 * PostgreSQL through the HTTP layer. UNIT_PG=all runs the whole unit layer there.
 */
const UNIT_ON_POSTGRES = ["server/jobs/", "server/domain/rewards/", "server/domain/ledger/", "server/domain/payouts/", "server/domain/tracking/", "server/domain/jobs/"];

async function vitest(project, db, filters = [], tag) {
  const label = `${project} layer ${db === "none" ? "(no database)" : `on ${db}`}${filters.length ? " (concurrency-sensitive files)" : ""}`;
  const out = path.join(reportDir, `vitest-${project}-${db}.json`);
  rmSync(out, { force: true });
  const ok = await step(label, "npx", ["vitest", "run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${out}`, ...filters], { TEST_DB: db }, tag);
  if (!count(out, label)) totals.failed += 1;
  if (!ok) failures.push(label);
}

/** Reads a Vitest JSON report into the totals, and its failed tests (or files) into `failedTests`. */
function count(out, label) {
  if (!existsSync(out)) return false;
  const j = JSON.parse(readFileSync(out, "utf8"));
  totals.passed += j.numPassedTests;
  totals.failed += j.numFailedTests;
  totals.skipped += j.numPendingTests + (j.numTodoTests ?? 0);
  for (const file of j.testResults ?? []) {
    const where = path.relative(root, file.name);
    const failed = (file.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failed) failedTests.push(`${label} · ${where} › ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`);
    if (!failed.length && file.status === "failed") failedTests.push(`${label} · ${where}: ${firstLine(file.message)}`);
  }
  return true;
}

/** Playwright's JSON report: specs that failed, or passed only on a retry. */
function countPlaywright(j) {
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      const results = spec.tests?.flatMap((t) => t.results ?? []) ?? [];
      const error = results.find((r) => r.error)?.error?.message;
      if (!spec.ok) failedTests.push(`browser · ${spec.file}:${spec.line} › ${spec.title}: ${firstLine(error)}`);
      else if (error) failedTests.push(`browser (passed on a retry) · ${spec.file}:${spec.line} › ${spec.title}: ${firstLine(error)}`);
    }
    for (const s of suite.suites ?? []) walk(s);
  };
  for (const s of j.suites ?? []) walk(s);
}

// eslint-disable-next-line no-control-regex -- strips the terminal colours of an error message
const firstLine = (text) => (text ?? "").replace(/\u001b\[[0-9;]*m/g, "").split("\n").find((l) => l.trim())?.trim().slice(0, 300) ?? "";

/**
 * The HTTP layer on every database at once: its tests mostly wait (on the app, the chain, block
 * confirmations, restarts), so the runs overlap well; each has its own app, chain and database.
 * Output lines carry the database's name.
 */
async function httpLayers(dbs) {
  const label = `http layer on ${dbs.join(" + ")}`;
  console.log(`\n━━ ${label} (concurrently) ━━`);
  const t = Date.now();
  const runs = dbs.map(async (db) => {
    const out = path.join(reportDir, `vitest-http-${db}.json`);
    rmSync(out, { force: true });
    const code = await capped(`http layer on ${db}`, "npx", ["vitest", "run", "--project", "http", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`], { env: { TEST_DB: db }, tag: db });
    if (!count(out, `http on ${db}`)) totals.failed += 1;
    if (code !== 0) failures.push(`http layer on ${db}`);
  });
  await Promise.all(runs);
  timings.push([label, Date.now() - t]);
}

async function postgresReachable() {
  const url = process.env.TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

const usableDbs = [];
for (const db of dbs) {
  if (db !== "postgres" || (await postgresReachable())) usableDbs.push(db);
  else if (ci) {
    console.error("\n✖ PostgreSQL is unreachable and CI=true: the PostgreSQL runs are required in CI.");
    failures.push("postgres unreachable");
    totals.failed += 1;
  } else console.log("\n⚠ PostgreSQL not reachable at 127.0.0.1:5432: skipping the PostgreSQL runs (set TEST_PG_URL to point elsewhere).");
}

/** Runs a command with its output lines prefixed; resolves to whether it passed (and times it). */
async function prefixed(label, tag, cmd, args, env = {}) {
  const t = Date.now();
  const code = await capped(label, cmd, args, { env, tag });
  timings.push([label, Date.now() - t]);
  return code === 0;
}

/** A check run in a lane: counted as one passed or failed suite. */
async function checkIn(label, tag, cmd, args) {
  if (await prefixed(label, tag, cmd, args)) totals.passed += 1;
  else {
    totals.failed += 1;
    failures.push(label);
  }
}

const needsBuild = (wants("http") && dbs.length > 0) || wants("e2e");
// Lint, types and the production build, in two lanes (ESLint and knip on one core; the type
// check, then the build, which is the longer, on the other).
if (wants("lint") || needsBuild) {
  console.log(`\n━━ ${[wants("lint") && "Lint, dead code, types", needsBuild && "production build"].filter(Boolean).join(" + ")} (two lanes) ━━`);
  await Promise.all([
    wants("lint") &&
      (async () => {
        await checkIn("Lint (ESLint)", "eslint", "npx", ["eslint", "--max-warnings=0", "."]);
        await checkIn("Dead code (knip)", "knip", "npx", ["knip"]);
      })(),
    (async () => {
      if (wants("lint")) await checkIn("Type check (tsc --noEmit)", "tsc", "npx", ["tsc", "--noEmit"]);
      // The type check above covers the app: the build skips its own (NEXT_SKIP_TYPECHECK).
      const buildEnv = wants("lint") ? { NEXT_SKIP_TYPECHECK: "1" } : {};
      if (needsBuild && !(await prefixed("Production build", "build", process.execPath, ["-e", "import('./scripts/ensure.mjs').then((m) => m.ensureBuild())"], buildEnv))) {
        totals.failed += 1;
        failures.push("production build");
      }
    })(),
  ]);
}
/** The unit layer: pure code first (no database), then the domain on each database. */
async function unitLayers(tag) {
  // Pure code first (no database): the rules core and its property tests, on CI at the pinned seed and 250 cases per property.
  await vitest("pure", "none", [], tag);
  for (const db of usableDbs) await vitest("unit", db, db === "postgres" && process.env.UNIT_PG !== "all" ? UNIT_ON_POSTGRES : [], tag);
}

/** A Chromium for Playwright: Debian's, an explicit one, or Playwright's own download. */
async function browserAvailable() {
  if (process.env.PLAYWRIGHT_CHROMIUM_PATH || ["/usr/bin/chromium", "/usr/bin/chromium-browser"].some((p) => existsSync(p))) return true;
  try {
    const { chromium } = await import("@playwright/test");
    return existsSync(chromium.executablePath());
  } catch {
    return false;
  }
}

/** The browser layer: the dashboard in a real Chromium. */
async function browserLayer(tag) {
  const e2eBrowser = await browserAvailable();
  if (!e2eBrowser) {
    if (ci) {
      console.error("\n✖ No Chromium for the e2e tests and CI=true (install Debian's chromium).");
      failures.push("no browser");
      totals.failed += 1;
    } else console.log("\n⚠ No Chromium found: skipping the dashboard e2e (apt-get install chromium, or npx playwright install chromium).");
    return;
  }
  ensureBuild();
  const out = path.join(reportDir, "playwright.json");
  rmSync(out, { force: true });
  const ok = await step("Browser layer (Playwright, real Chromium)", "npx", ["playwright", "test", "--reporter=list,json"], { PLAYWRIGHT_JSON_OUTPUT_NAME: out }, tag);
  if (existsSync(out)) {
    const report = JSON.parse(readFileSync(out, "utf8"));
    countPlaywright(report);
    const s = report.stats ?? {};
    totals.passed += (s.expected ?? 0) + (s.flaky ?? 0);
    totals.failed += s.unexpected ?? 0;
    totals.skipped += s.skipped ?? 0;
  } else if (!ok) totals.failed += 1;
  if (!ok) failures.push("playwright");
}

// The HTTP layer mostly waits (on its apps, the chain, block confirmations, restarts): it runs
// beside the unit layer and then the browser layer, each with its own app, chain and databases.
// Beside it, the other layers' output lines carry their names.
const runsHttp = wants("http") && usableDbs.length > 0;
if (runsHttp) ensureBuild();
const beside = runsHttp ? (name) => name : () => undefined;
await Promise.all([
  runsHttp && httpLayers(usableDbs),
  (async () => {
    if (wants("unit")) await unitLayers(beside("unit"));
    if (wants("e2e")) await browserLayer(beside("browser"));
  })(),
]);

console.log(`\n${timings.map(([l, ms]) => `  ${l}: ${(ms / 1000).toFixed(0)} s`).join("\n")}\n  total: ${((Date.now() - started) / 1000).toFixed(0)} s (Node ${process.versions.node})`);
if (failedTests.length) console.log(`\nFailed tests:\n${failedTests.map((t) => `  ✖ ${t}`).join("\n")}`);
console.log(`\n${failures.length ? `✖ failed: ${failures.join(", ")}` : "✔ all suites green"}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failures.length ? 1 : 0);
