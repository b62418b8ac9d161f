// `npm run test:first-start`: a newcomer's first `npm start`, timed. Clones this repository's
// HEAD into a temporary folder (no node_modules, no build, no data), runs `npm start` until the
// dashboard is served, stops it, and starts it again. Prints both times (figures for notes and
// the README, not assertions: this machine's load decides them) and checks what a newcomer
// reads: no npm or build warnings, a line saying how long the first start takes, the addresses
// last. Minutes long, so not part of `npm test`.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { root } from "./ensure.mjs";

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Runs `npm start` in `dir` until the dashboard answers; resolves to its time and output, then stops it. */
async function startUntilServed(dir, port, chainPort) {
  const t = Date.now();
  const env = { ...process.env, PORT: String(port), LOCAL_CHAIN_PORT: String(chainPort), CI: "" };
  const child = spawn("npm", ["start"], { cwd: dir, detached: true, env });
  let output = "";
  for (const s of [child.stdout, child.stderr]) s.on("data", (d) => (output += d));
  const exited = new Promise((r) => child.on("exit", r));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${output}`);
      // The start prints its addresses once the dashboard answers.
      if (output.includes("Dashboard: http")) break;
      if (Date.now() - t > 30 * 60_000) throw new Error(`npm start served nothing in 30 min:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const ms = Date.now() - t;
    const res = await fetch(`http://127.0.0.1:${port}/dashboard`, { redirect: "manual" });
    assert.ok(res.status < 500, `the dashboard answered ${res.status}`);
    return { ms, output };
  } finally {
    process.kill(-child.pid, "SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

test("a fresh clone's first npm start serves the dashboard, quietly; the second is quick", { timeout: 40 * 60_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rts-first-start-"));
  try {
    execFileSync("git", ["clone", "-q", root, dir]);
    const [port, chainPort] = [await freePort(), await freePort()];
    const first = await startUntilServed(dir, port, chainPort);
    const second = await startUntilServed(dir, port, chainPort);
    console.log(`first start: ${(first.ms / 1000).toFixed(1)} s; second start: ${(second.ms / 1000).toFixed(1)} s (node ${process.versions.node}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)})`);
    console.log(`--- what the first start printed ---\n${first.output}`);
    assert.match(first.output, /First start: .* minutes/);
    assert.doesNotMatch(first.output, /npm warn|Warning:|Tip: /i);
    const lines = first.output.trim().split("\n");
    assert.ok(lines.slice(-4).some((l) => l.includes("/dashboard")), "the addresses come last");
    assert.doesNotMatch(second.output, /Installing|Building/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
