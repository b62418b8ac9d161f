#!/usr/bin/env node
// `npm test`: the whole suite, on a fresh clone.
//  1. installs dependencies, generates the Prisma client, builds the production bundle;
//  2. data-layer + API tests (vitest, real `next start` over HTTP) on PGlite;
//  3. the same suite on PostgreSQL (TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres):
//     skipped with a notice when no server is reachable, but a failure when CI=true;
//  4. dashboard e2e in a real browser (Playwright).
// Prints one closing line: "N passed, N failed".
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { ensureBuild, ensureDependencies, ensurePrismaClient, root } from "./ensure.mjs";

const ci = process.env.CI === "true" || process.env.CI === "1";
const only = process.argv.slice(2).find((a) => a.startsWith("--only="))?.slice(7); // pglite | postgres | e2e
ensureDependencies();
ensurePrismaClient();
ensureBuild();

console.log("\n━━ Type check (tsc --noEmit) ━━");
const tsc = spawnSync("npx", ["tsc", "--noEmit"], { cwd: root, stdio: "inherit" });

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = tsc.status === 0 ? [] : ["typecheck"];
const reportDir = path.join(root, "test-results");
mkdirSync(reportDir, { recursive: true });

function vitest(label, env) {
  const out = path.join(reportDir, `vitest-${label}.json`);
  rmSync(out, { force: true });
  console.log(`\n━━ API and data-layer tests on ${label} ━━`);
  const r = spawnSync("npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
  if (existsSync(out)) {
    const j = JSON.parse(readFileSync(out, "utf8"));
    totals.passed += j.numPassedTests;
    totals.failed += j.numFailedTests;
    totals.skipped += j.numPendingTests + (j.numTodoTests ?? 0);
  } else totals.failed += 1;
  if (r.status !== 0) failures.push(`vitest (${label})`);
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

if (!only || only === "pglite") vitest("pglite", { TEST_DB: "pglite" });
if (!only || only === "postgres") {
  if (await postgresReachable()) vitest("postgres", { TEST_DB: "postgres" });
  else if (ci) {
    console.error("\n✖ PostgreSQL is unreachable and CI=true: the PostgreSQL run is required in CI.");
    failures.push("postgres unreachable");
    totals.failed += 1;
  } else console.log("\n⚠ PostgreSQL not reachable at 127.0.0.1:5432: skipping the PostgreSQL run (set TEST_PG_URL to point elsewhere).");
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

const e2eWanted = (!only || only === "e2e") && existsSync(path.join(root, "playwright.config.ts"));
const e2eBrowser = e2eWanted && (await browserAvailable());
if (e2eWanted && !e2eBrowser) {
  if (ci) {
    console.error("\n✖ No Chromium for the e2e tests and CI=true (install Debian's chromium).");
    failures.push("no browser");
    totals.failed += 1;
  } else console.log("\n⚠ No Chromium found: skipping the dashboard e2e (apt-get install chromium, or npx playwright install chromium).");
}
if (e2eBrowser) {
  console.log("\n━━ Dashboard e2e (Playwright, real browser) ━━");
  const out = path.join(reportDir, "playwright.json");
  rmSync(out, { force: true });
  const r = spawnSync("npx", ["playwright", "test", "--reporter=list,json"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: out },
  });
  if (existsSync(out)) {
    const s = JSON.parse(readFileSync(out, "utf8")).stats ?? {};
    totals.passed += (s.expected ?? 0) + (s.flaky ?? 0);
    totals.failed += s.unexpected ?? 0;
    totals.skipped += s.skipped ?? 0;
  } else if (r.status !== 0) totals.failed += 1;
  if (r.status !== 0) failures.push("playwright");
}

console.log(`\n${failures.length ? `✖ failed: ${failures.join(", ")}` : "✔ all suites green"}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failures.length ? 1 : 0);
