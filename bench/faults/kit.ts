// What the fault experiments share (bench/faults.ts, tests/http/faults.test.ts): a private
// PostgreSQL cluster (initdb in a temp dir, own port: never the machine's shared server, whose
// backends and xmin belong to others), a local chain, HTTP calls that never throw, and a funded
// business whose referrers earn one reward per new referred user.
import { spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createPublicClient, createWalletClient, http as viemHttp, parseEther, type Address, type Hash } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { applyMigrations } from "../../server/db/migrate";
import { startLocalChain } from "../../scripts/local-chain.mjs";
import { freePort } from "../../tests/support/app";

const PG_BIN = path.join("/usr/lib/postgresql", readdirSync("/usr/lib/postgresql").sort().at(-1)!, "bin");
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The parts of answers these experiments read. */
export interface Body {
  error?: { code?: string; message?: string };
  results?: Array<{ success?: boolean; eventId?: string; jobId?: string }>;
  token?: string;
  secret?: string;
  [k: string]: unknown;
}
export interface Answer {
  status: number;
  body: Body | null;
  retryAfter: string | null;
  ms: number;
}

function asPostgres(cmd: string, args: string[]) {
  const full = path.join(PG_BIN, cmd);
  const r = os.userInfo().uid === 0 ? spawnSync("runuser", ["-u", "postgres", "--", full, ...args], { encoding: "utf8" }) : spawnSync(full, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

export type Cluster = Awaited<ReturnType<typeof startCluster>>;

/** A throwaway PostgreSQL cluster with a migrated database `rts`; `remove` stops and deletes it. */
export async function startCluster() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rts-faultpg-"));
  if (os.userInfo().uid === 0) {
    const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout);
    chownSync(dir, id("-u"), id("-g"));
  }
  const data = path.join(dir, "data");
  const port = await freePort();
  asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8"]);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=80 -c fsync=off`;
  const start = () => asPostgres("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-o", opts, "-w", "start"]);
  const stop = (mode: "fast" | "immediate") => asPostgres("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
  start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query("CREATE DATABASE rts");
  await admin.end();
  const url = `postgres://postgres@127.0.0.1:${port}/rts`;
  // PostgreSQL databases are migrated before the app starts (npm run db:migrate does the same).
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await applyMigrations({ query: (q, p) => pool.query(q, p), exec: async (q) => void (await pool.query(q)) });
  await pool.end();
  return {
    url,
    start,
    stop,
    remove: () => {
      try {
        stop("immediate");
      } catch {
        /* already down */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One statement on a cluster, on a connection of its own (never one of the app's). */
export async function query<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  c.on("error", () => {});
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** An HTTP call that answers status 0 instead of throwing when the connection fails. */
export async function http(url: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const t0 = Date.now();
  try {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let json: Body | null = null;
    try {
      json = JSON.parse(text) as Body;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: json, retryAfter: res.headers.get("retry-after"), ms: Date.now() - t0 };
  } catch (e) {
    return { status: 0, body: { error: { code: "NETWORK", message: (e as Error).message } }, retryAfter: null, ms: Date.now() - t0 };
  }
}

/** Signs up an owner and creates a TEST key. */
export async function owner(url: string) {
  const email = `fault-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const r = await http(url, "POST", "/api/auth/sign-up/email", { email, password: "correct-horse-battery", name: "F", businessName: "Faults" }, { origin: url });
  if (r.status !== 200) throw new Error(`sign-up ${r.status} ${JSON.stringify(r.body)}`);
  const token = r.body?.token ?? "";
  const key = await http(url, "POST", "/business/api-keys", { environment: "TEST" }, { authorization: `Bearer ${token}` });
  if (key.status !== 200) throw new Error(`api key ${key.status} ${JSON.stringify(key.body)}`);
  return { token, secret: key.body?.secret ?? "" };
}

/** A local chain (EDR) of the experiments' own. */
export async function startChain() {
  const port = await freePort();
  const proc = await startLocalChain({ port, reuse: false, log: "ignore" });
  return { rpc: `http://127.0.0.1:${port}`, stop: async () => void proc?.kill("SIGTERM") };
}

const DEV_MNEMONIC = "test test test test test test test test test test test junk";
/** Hardhat's prefunded dev accounts (unlocked on the node); #0 is the app's test-deposit faucet, #7 pays here. */
const devAccount = (i: number): Address => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i }).address;

/** Tallies answers by status (and error code for failures). */
export function tally(xs: Array<{ status: number; body: Body | null; retryAfter?: string | null }>) {
  const out: Record<string, number> = {};
  for (const x of xs) {
    const failed = x.status >= 400 || x.status === 0;
    const k = failed ? `${x.status} ${x.body?.error?.code ?? "?"}${x.status === 503 ? (x.retryAfter ? " +Retry-After" : " (no Retry-After)") : ""}` : String(x.status);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

export interface Shop {
  url: string;
  token: string;
  secret: string;
  businessId: string;
  codes: string[];
  /** A /business call as the owner. */
  call: (method: string, p: string, body?: unknown) => Promise<Answer>;
  /** An SDK call with the TEST key. */
  sdk: (method: string, p: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;
}

/**
 * A business on `url` with a TEST pool funded on the chain at `rpc`, rewards of `rewardEth` per
 * new referred user (no bonus, no holds), `processing` (SYNC or ASYNC) and `referrers` referrers,
 * with wallets when `wallets` is set.
 */
export async function shop(url: string, rpc: string, opts: { processing: "SYNC" | "ASYNC" | "AUTO"; rewardEth: string; fundEth: string; referrers: number; wallets?: Address[] }): Promise<Shop> {
  const { token, secret } = await owner(url);
  const call = (m: string, p: string, b?: unknown) => http(url, m, p, b, { authorization: `Bearer ${token}` });
  const sdk = (m: string, p: string, b?: unknown, h: Record<string, string> = {}) => http(url, m, p, b, { "x-api-key": secret, ...h });
  const g = await call("PATCH", "/business/config/general", { referralRewardEth: opts.rewardEth, bonusEth: "0", eventProcessing: opts.processing });
  if (g.status !== 200) throw new Error(`config ${g.status} ${JSON.stringify(g.body)}`);
  const me = await call("GET", "/business/me");
  const businessId = String((me.body?.business as { businessId: string }).businessId);
  const balance = await call("GET", "/business/balance?environment=TEST");
  const client = createPublicClient({ transport: viemHttp(rpc) });
  const hash: Hash = await createWalletClient({ transport: viemHttp(rpc) }).sendTransaction({ account: devAccount(7), to: balance.body?.depositAddress as Address, value: parseEther(opts.fundEth), chain: null });
  await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  const v = await call("POST", "/business/funding/verify", { txHash: hash, environment: "TEST" });
  if (v.status !== 200) throw new Error(`funding ${v.status} ${JSON.stringify(v.body)}`);
  const codes: string[] = [];
  for (let i = 0; i < opts.referrers; i++) {
    const wallet = opts.wallets?.[i];
    const r = await sdk("POST", "/sdk/participants", { userId: `ref-${i}`, ...(wallet ? { walletAddress: wallet.toLowerCase() } : {}) });
    if (r.status !== 200) throw new Error(`participant ${r.status} ${JSON.stringify(r.body)}`);
    codes.push(String(r.body?.referralCode));
  }
  return { url, token, secret, businessId, codes, call, sdk };
}

/** The event of a new referred user brought by referrer `i`, keyed by `key`. */
export const referredEvent = (s: Pick<Shop, "codes">, key: string, i: number) => ({
  eventName: "signup",
  idempotencyKey: key,
  referrer: s.codes[i % s.codes.length],
  metadata: { referredUserEmail: `${key}@example.com` },
});
