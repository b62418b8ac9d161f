// A fresh embedded database (the first `npm start` of a new install): the migrations create our
// enums after PGlite opened, and PGlite serializes a parameter by the type it knew then. Arrays of
// those enums as parameters (the pools' claims: `$1::"JobType"[]`) must still arrive as arrays.
// The suite's own PGlite is loaded from a migrated dump, so this runs in a process of its own.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

const script = `(async () => {
  const { rawRows, dbReady, closeDb } = await import(${JSON.stringify(path.join(ROOT, "server/db/client.ts"))});
  const { claimDueJobs } = await import(${JSON.stringify(path.join(ROOT, "server/jobs/claim.ts"))});
  await dbReady();
  const [row] = await rawRows('SELECT array_length($1::"JobType"[], 1) AS n', ["WEBHOOK_DELIVER", "REWARD_PAYOUT"]);
  // A pool's claim (with rooms and the wait of a burst) on the empty queue.
  const jobs = await claimDueJobs(4, ["WEBHOOK_DELIVER"], 1000, { after: "", room: () => 1, yieldTo: { types: ["EVENT_PROCESS"] } });
  await closeDb();
  process.stdout.write("RESULT " + JSON.stringify({ n: row.n, claimed: jobs.length }) + "\\n");
})().catch((e) => { console.error(String(e && e.message || e).slice(-300)); process.exit(1); });`;

describe("a fresh embedded database", () => {
  it("takes arrays of the migrations' enums as parameters", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: "memory://" };
    delete env.DATABASE_URL;
    const out = execFileSync(path.join(ROOT, "node_modules", ".bin", "tsx"), ["--eval", script], { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });
    const line = out.split("\n").find((l) => l.startsWith("RESULT "));
    expect(JSON.parse(line!.slice(7))).toEqual({ n: 2, claimed: 0 });
  }, 90_000);
});
