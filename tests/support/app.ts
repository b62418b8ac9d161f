// Starts the real production build (scripts/serve.mjs) on its own port and database: for HTTP tests
// and for the benchmarks (bench/app.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createPostgresDatabase, tempPgliteDir, testDbKind } from "./database";
import { loadSecrets } from "../../scripts/secrets.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
// The clone's secrets (scripts/secrets.mjs), as the apps and workers started from here load them:
// what this process writes with them (a webhook's encrypted secret, say) they read.
loadSecrets();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningApp {
  url: string;
  port: number;
  proc: ChildProcess;
  env: NodeJS.ProcessEnv;
  /** Graceful stop (SIGTERM). */
  stop(): Promise<void>;
  /** Crash (SIGKILL): no shutdown hooks run. */
  kill(): Promise<void>;
  logs(): string;
}

/**
 * Starts the production build (scripts/serve.mjs) and waits until /api/health answers. Its database: the one extraEnv names
 * (DATABASE_URL or PGLITE_DIR), else a private one — a fresh PostgreSQL database in a
 * PostgreSQL run (dropped on stop), a private PGlite otherwise — so that no other app's job
 * runner or payout loop (with another chain) ever touches this app's rows.
 */
export async function startApp(extraEnv: Record<string, string> = {}, port?: number): Promise<RunningApp> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...(process.env as Record<string, string>),
    NODE_ENV: "production",
    PORT: String(port),
    APP_URL: url,
    AUTH_RATE_LIMIT: "0",
    // The tests' webhook receivers listen on loopback.
    WEBHOOK_ALLOW_LOOPBACK: "1",
    RATE_LIMIT_PER_SECOND: process.env.RATE_LIMIT_PER_SECOND ?? "1000",
    RATE_LIMIT_BURST: process.env.RATE_LIMIT_BURST ?? "2000",
    ...extraEnv,
  } as NodeJS.ProcessEnv & Record<string, string>;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (!("DATABASE_URL" in extraEnv) && !("PGLITE_DIR" in extraEnv)) {
    if (testDbKind() === "postgres") {
      const created = await createPostgresDatabase("rts_app");
      env.DATABASE_URL = created.url;
      dropDatabase = created.drop;
    } else {
      delete env.DATABASE_URL;
      if (!env.PGLITE_DIR) {
        const dir = (env.PGLITE_DIR = tempPgliteDir());
        dropDatabase = async () => rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  const proc = spawn(process.execPath, [path.join(ROOT, "scripts", "serve.mjs"), "-p", String(port), "-H", "127.0.0.1"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (out += d));
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`App exited during start-up:\n${out}`);
    try {
      const r = await fetch(`${url}/api/health`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`App did not become healthy in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const signal = async (sig: NodeJS.Signals) => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
    await exited;
  };
  return {
    url,
    port,
    proc,
    env,
    stop: async () => {
      await signal("SIGTERM");
      await dropDatabase?.();
    },
    kill: () => signal("SIGKILL"),
    logs: () => out,
  };
}
