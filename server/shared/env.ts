// Every environment variable the service reads, declared once (`variables`, zod schemas checked
// with @t3-oss/env-core), with its default; `env.x` reads one, `checkEnv` checks them all at start.
// The defaults run the whole product on one machine with nothing else installed. A malformed
// value is never replaced by a default: reading it throws, naming the variable. In production
// (NODE_ENV=production) BETTER_AUTH_SECRET and WEBHOOK_SECRET_KEY are required (32 characters or
// more; `npm start` generates both once into .data/secrets.json, scripts/secrets.mjs) and the
// public development mnemonic is refused as DEPOSIT_MNEMONIC.
import { createEnv } from "@t3-oss/env-core";
import { z } from "zod";

/** The public development mnemonic (Hardhat's default accounts): never acceptable in production. */
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";
/** Outside production only: the key material of sessions and of webhook secrets at rest. */
const DEV_SECRET = "dev-only-secret-change-me-in-production-0123456789";

/** A whole number (digits only), or its default when unset. */
const integer = (fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number (digits only)")
    .transform(Number)
    .optional()
    .transform((v) => v ?? fallback);
const text = z.string().optional();
const secret = z.string({ error: "is required in production (32 characters or more)" }).min(32, "must be 32 characters or more in production");
const normalizedMnemonic = (m: string) => m.trim().toLowerCase().split(/\s+/).join(" ");
const privateMnemonic = text.refine((m) => m === undefined || normalizedMnemonic(m) !== DEV_MNEMONIC, "is the public development mnemonic: refused in production");

/** The variables, in the order of the getters below; `production`: the checks of a production process. */
const variables = (production: boolean) => ({
  PORT: integer(3000),
  APP_URL: text,
  AUTH_URL: text,
  SESSION_CACHE_SECONDS: integer(5),
  TRUSTED_PROXIES: text,
  BETTER_AUTH_SECRET: production ? secret : text,
  WEBHOOK_SECRET_KEY: production ? secret : text,
  DATABASE_URL: text,
  PGLITE_DIR: text,
  REDIS_URL: text,
  RATE_LIMIT_PER_SECOND: integer(50),
  RATE_LIMIT_BURST: integer(100),
  RATE_LIMIT_PUBLISHABLE_PER_SECOND: integer(10),
  RATE_LIMIT_PUBLISHABLE_BURST: integer(100),
  TRACK_BATCH_CONCURRENCY_PER_KEY: integer(2),
  TRACK_BATCH_CONCURRENCY_PER_BUSINESS: integer(4),
  TRACK_BATCH_TX_EVENTS: integer(0),
  TRACK_BATCH_CONCURRENCY: integer(0),
  WEBHOOK_ALLOW_LOOPBACK: text,
  WEBHOOK_TEST_PER_MINUTE: integer(10),
  STRIPE_WEBHOOK_PER_MINUTE: integer(600),
  INNGEST_EVENT_KEY: text,
  INNGEST_DEV: text,
  DATABASE_STATEMENT_TIMEOUT_MS: integer(20_000),
  DATABASE_IDLE_IN_TRANSACTION_MS: integer(60_000),
  DATABASE_PLAN_REFRESH_MS: integer(2_000),
  JOB_MAX_ATTEMPTS: integer(5),
  JOB_POLL_MS: integer(250),
  JOB_IDLE_POLL_MS: integer(1000),
  TABLE_STATS_CHECK_MS: integer(2_000),
  JOB_LEASE_MS: integer(30_000),
  JOB_RUNNER: text,
  EMBEDDED_RUNNER: text,
  JOB_BATCH_SIZE: integer(1000),
  JOB_BATCH_TX_SIZE: integer(0),
  SMTP_URL: text,
  SMTP_TLS_INSECURE: text,
  EMAIL_FROM: text,
  SMTP_TIMEOUT_MS: integer(10_000),
  EMAIL_CONCURRENCY: integer(4),
  WEBHOOK_CONCURRENCY: integer(32),
  WEBHOOK_YIELD_MS: integer(30_000),
  PAYOUT_CONCURRENCY: integer(2),
  JOB_RETENTION_DAYS: integer(7),
  RETENTION_INTERVAL_MS: integer(3_600_000),
  PROOF_SCHEDULE_MS: integer(3_600_000),
  RETENTION_BATCH_SIZE: integer(1000),
  CHAIN_RPC_URL: text,
  CHAIN_RPC_URL_TEST: text,
  LOCAL_CHAIN_PORT: integer(8545),
  FUNDING_CONFIRMATIONS: integer(1),
  FUNDING_CONFIRMATIONS_TEST: integer(1),
  DEPOSIT_MNEMONIC: production ? privateMnemonic : text,
  DEPOSIT_MNEMONIC_TEST: text,
  PAYOUT_INTERVAL_MS: integer(60_000),
  WITHDRAWAL_RUN_DELAY_MS: integer(5_000),
  PAYOUT_STUCK_AFTER_MS: integer(15_000),
  PAYOUT_MAX_GAS: integer(30_000),
  PAYOUT_MAX_GAS_PERCENT: integer(10),
  PAYOUT_BATCH_SIZE: integer(200),
  PAYOUT_BATCH_CONTRACT: text,
  CLICK_RETENTION_DAYS: integer(90),
  LINK_CLICKS_PER_NETWORK_HOUR: integer(30),
  LINK_CACHE_SECONDS: integer(30),
  LINK_FALLBACK_URL: text,
  CLICK_FLUSH_MS: integer(500),
  CLICK_BUFFER_MAX: integer(100_000),
  EXPLORER_URL: text,
  EXPLORER_URL_TEST: text,
  NODE_ENV: text,
  TRUSTED_ORIGINS: text,
  AUTH_RATE_LIMIT: text,
  DATABASE_POOL_SIZE: integer(10),
  MIGRATE_ON_START: text,
  DIRECT_SQL: text,
  REQUEST_COALESCING: text,
  QUERY_PLAN_CACHE: text,
  BENCH_ROUTES: text,
});
type Variables = ReturnType<typeof variables>;
type Name = keyof Variables;
type RuntimeEnv = Record<string, string | undefined>;

/** `next build` runs with NODE_ENV=production but is no production process: it has no secrets yet. */
const isProductionIn = (runtime: RuntimeEnv) => runtime.NODE_ENV === "production" && runtime.NEXT_PHASE !== "phase-production-build";
const production = () => isProductionIn(process.env);
const schemas = { plain: variables(false), production: variables(true) };
/** The variables whose check differs in production. */
const guarded: ReadonlySet<string> = new Set(["BETTER_AUTH_SECRET", "WEBHOOK_SECRET_KEY", "DEPOSIT_MNEMONIC"]);

/** An empty value is an unset one. */
const present = (v: string | undefined) => (v === "" ? undefined : v);

/** Reads one variable now (tests and scripts set some at run time), parsed once per value. */
const seen = new Map<string, { raw: string | undefined; production: boolean; value: unknown }>();
function read<N extends Name>(name: N): z.output<Variables[N]> {
  const raw = present(process.env[name]);
  const prod = guarded.has(name) && production();
  const hit = seen.get(name);
  if (hit && hit.raw === raw && hit.production === prod) return hit.value as z.output<Variables[N]>;
  const parsed = (prod ? schemas.production : schemas.plain)[name].safeParse(raw);
  if (!parsed.success) throw new Error(`Invalid environment variable ${name}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  seen.set(name, { raw, production: prod, value: parsed.data });
  return parsed.data as z.output<Variables[N]>;
}

/**
 * Checks every variable at once (a process's start: the server's runtime, the worker): throws
 * one error naming each variable that is malformed or, in production, missing.
 */
export function checkEnv(runtime: RuntimeEnv = process.env): void {
  const values: RuntimeEnv = {};
  for (const name of Object.keys(schemas.plain)) values[name] = present(runtime[name]);
  createEnv({
    server: isProductionIn(runtime) ? schemas.production : schemas.plain,
    runtimeEnv: values,
    onValidationError: (issues) => {
      const named = issues.map((i) => `${i.path?.map((p) => (typeof p === "object" ? String(p.key) : String(p))).join(".") || "?"} ${i.message}`);
      throw new Error(`Invalid environment variables: ${named.join("; ")}`);
    },
  });
}

/** checkEnv at a server's start: a bad variable stops the process, named (Next.js would log a failing start-up hook and serve on). */
export function checkEnvOrExit(): void {
  try {
    checkEnv();
  } catch (e) {
    console.error(`✖ ${(e as Error).message}`);
    process.exit(1);
  }
}

export const env = {
  get port() {
    return read("PORT");
  },
  /** Public base URL of this app. */
  get appUrl() {
    return (read("APP_URL") ?? `http://127.0.0.1:${this.port}`).replace(/\/$/, "");
  },
  /** Session provider: `{AUTH_URL}/api/auth/get-session`. Defaults to this app's Better Auth. */
  get authUrl() {
    return (read("AUTH_URL") ?? this.appUrl).replace(/\/$/, "");
  },
  /** True when the session provider is this app's own Better Auth (sessions resolved in process). */
  get authIsSelf() {
    return !read("AUTH_URL") || this.authUrl === this.appUrl;
  },
  /** How long a positive session lookup is reused (seconds, 0 = never); see server/auth/session.ts. */
  get sessionCacheSeconds() {
    return Math.min(60, read("SESSION_CACHE_SECONDS"));
  },
  /** Reverse proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For is believed; default none. */
  get trustedProxies() {
    return read("TRUSTED_PROXIES") ?? "";
  },
  get authSecret() {
    return read("BETTER_AUTH_SECRET") ?? DEV_SECRET;
  },
  /** Key material for encrypting webhook signing secrets at rest (HKDF → AES-256-GCM). */
  get webhookSecretKey() {
    return read("WEBHOOK_SECRET_KEY") ?? this.authSecret;
  },
  /** postgres://… → PostgreSQL; unset → embedded PGlite. */
  get databaseUrl(): string | undefined {
    const u = read("DATABASE_URL");
    return u && /^postgres(ql)?:\/\//.test(u) && !u.includes("pglite") ? u : undefined;
  },
  get pgliteDir() {
    return read("PGLITE_DIR") ?? ".data/pglite";
  },
  get redisUrl() {
    return read("REDIS_URL") || undefined;
  },
  get rateLimitPerSecond() {
    return read("RATE_LIMIT_PER_SECOND");
  },
  get rateLimitBurst() {
    return read("RATE_LIMIT_BURST");
  },
  /** Publishable keys (browser bundles, anyone can copy them) get a lower sustained rate by default. */
  get rateLimitPublishablePerSecond() {
    return read("RATE_LIMIT_PUBLISHABLE_PER_SECOND");
  },
  get rateLimitPublishableBurst() {
    return read("RATE_LIMIT_PUBLISHABLE_BURST");
  },
  /** /track/batch requests one API key may have in progress at once (more: 429). */
  get batchConcurrencyPerKey() {
    return Math.max(1, read("TRACK_BATCH_CONCURRENCY_PER_KEY"));
  },
  /** /track/batch requests one business (all its keys) may have in progress at once (more: 429). */
  get batchConcurrencyPerBusiness() {
    return Math.max(1, read("TRACK_BATCH_CONCURRENCY_PER_BUSINESS"));
  },
  /**
   * Most events of a /track/batch written in one transaction; null when unset: 100 (the whole
   * batch) on PostgreSQL, 5 on PGlite, whose one connection every other request waits for.
   */
  get batchTxEvents(): number | null {
    const n = read("TRACK_BATCH_TX_EVENTS");
    return n > 0 ? Math.min(100, n) : null;
  },
  /** /track/batch requests writing at once in this process; null when unset: 1 on PGlite, unbounded on PostgreSQL. */
  get batchConcurrencyGlobal(): number | null {
    const n = read("TRACK_BATCH_CONCURRENCY");
    return n > 0 ? n : null;
  },
  /**
   * "1" allows loopback webhook endpoints on TEST (local development); off by default, so that a
   * business cannot use deliveries to learn which of the server's own ports answer.
   */
  get webhookAllowLoopback() {
    return read("WEBHOOK_ALLOW_LOOPBACK") === "1";
  },
  /** Test sends (POST /business/webhooks/{id}/test) per endpoint per minute. */
  get webhookTestPerMinute() {
    return Math.max(1, read("WEBHOOK_TEST_PER_MINUTE"));
  },
  /** Deliveries accepted per Stripe connection per minute (its webhook URL); beyond, 429 and Stripe retries. */
  get stripeWebhookPerMinute() {
    return Math.max(1, read("STRIPE_WEBHOOK_PER_MINUTE"));
  },
  /** Inngest is used when an event key is configured or INNGEST_DEV is set; else the embedded runner. */
  get inngestEnabled() {
    return !!read("INNGEST_EVENT_KEY") || (!!read("INNGEST_DEV") && read("INNGEST_DEV") !== "0");
  },
  /** Longest a statement may run, lock waits included (PostgreSQL statement_timeout; ms). */
  get dbStatementTimeoutMs() {
    return Math.max(100, read("DATABASE_STATEMENT_TIMEOUT_MS"));
  },
  /** Longest a transaction may sit idle between statements before the server ends it (ms). */
  get dbIdleInTransactionMs() {
    return Math.max(100, read("DATABASE_IDLE_IN_TRANSACTION_MS"));
  },
  /** When a pooled connection first drops its cached query plans, the interval then doubling (ms, 0 = never); server/db/client.ts. */
  get dbPlanRefreshMs() {
    return read("DATABASE_PLAN_REFRESH_MS");
  },
  get jobMaxAttempts() {
    return read("JOB_MAX_ATTEMPTS");
  },
  get jobPollMs() {
    return read("JOB_POLL_MS");
  },
  /** PGlite: the longest pause between an idle runner's polls (ms); server/jobs/runner.ts pollPause. */
  get jobIdlePollMs() {
    return read("JOB_IDLE_POLL_MS");
  },
  /** How often a runner checks whether the job path's tables outgrew their planner statistics (0: never). */
  get tableStatsCheckMs() {
    return read("TABLE_STATS_CHECK_MS");
  },
  get jobLeaseMs() {
    return read("JOB_LEASE_MS");
  },
  /**
   * Whether this process drains the job table (embedded runner + retention schedule). On by
   * default, so a plain `npm start` processes its own queue. JOB_RUNNER=off (or the older
   * EMBEDDED_RUNNER=0) makes a web-only instance; `npm run worker` runs a drain-only process.
   */
  get embeddedRunner() {
    const v = (read("JOB_RUNNER") ?? "").toLowerCase();
    return read("EMBEDDED_RUNNER") !== "0" && !["off", "0", "false", "no"].includes(v);
  },
  /** Jobs a runner claims per poll; events of one business+environment among them run as one batch. */
  get jobBatchSize() {
    return Math.min(1000, Math.max(1, read("JOB_BATCH_SIZE")));
  },
  /**
   * Most jobs in one batch transaction (one business+environment, one pool lock); null when unset:
   * the runner then takes 1000 on PostgreSQL and 500 on PGlite (one connection for the whole
   * process, which a batch holds until it commits: every request waits behind it).
   */
  get jobBatchTxSize(): number | null {
    const n = read("JOB_BATCH_TX_SIZE");
    return n > 0 ? Math.min(1000, n) : null;
  },
  /**
   * Webhook deliveries a runner has in flight at once, in their own pool beside the event loop
   * (1–100); one business holds at most half of them (runner.ts jobPool).
   */
  /** smtp://user:pass@host:port or smtps://…: where emails are sent; unset: they are kept as NOT_CONFIGURED (docs/email.md). */
  get smtpUrl(): string | undefined {
    const u = read("SMTP_URL");
    return u && /^smtps?:\/\//.test(u) ? u : undefined;
  },
  /** "1": accept the SMTP server's certificate without verifying it (a local relay). */
  get smtpTlsInsecure() {
    return read("SMTP_TLS_INSECURE") === "1";
  },
  /** The sender of every email; a business's fromName replaces the name. */
  get emailFrom() {
    return read("EMAIL_FROM") || "Referrals <no-reply@localhost>";
  },
  /** Longest wait for the SMTP server to connect, greet or answer (ms). */
  get smtpTimeoutMs() {
    return Math.min(60_000, Math.max(500, read("SMTP_TIMEOUT_MS")));
  },
  /** Emails being sent at once (their own pool: a hanging server holds up no other job). */
  get emailConcurrency() {
    return Math.min(50, Math.max(1, read("EMAIL_CONCURRENCY")));
  },
  get webhookConcurrency() {
    return Math.min(100, Math.max(1, read("WEBHOOK_CONCURRENCY")));
  },
  /**
   * While the runner has a backlog of events (its last claim of event jobs was full, or a full
   * claim is still being decided), the webhook pool takes a business's jobs only once due for at
   * least this long (ms, 0–60000; 0: it never yields) if that business is in a burst (queued
   * events, or events of a full claim still being decided): its burst of events is decided first,
   * and no message waits longer than this for it. Other businesses' messages do not wait.
   */
  get webhookYieldMs() {
    return Math.min(60_000, Math.max(0, read("WEBHOOK_YIELD_MS")));
  },
  /** Payout runs a runner has in flight at once, in their own pool beside the event loop (1–20). */
  get payoutConcurrency() {
    return Math.min(20, Math.max(1, read("PAYOUT_CONCURRENCY")));
  },
  /**
   * Finished (SUCCEEDED / FAILED) jobs are deleted this many days after they finished; at least 1,
   * as long as an idempotent replay may still name a job (its key's 24 hours) for GET /sdk/jobs/:id.
   */
  get jobRetentionDays() {
    return Math.max(1, read("JOB_RETENTION_DAYS"));
  },
  /** How often the embedded retention sweep runs (the Inngest cron runs hourly). */
  get retentionIntervalMs() {
    return read("RETENTION_INTERVAL_MS");
  },
  /** How often the embedded schedule queues the daily proofs of liabilities that are due (0: never; the Inngest cron runs hourly). */
  get proofScheduleMs() {
    return Math.max(0, read("PROOF_SCHEDULE_MS"));
  },
  /** Rows deleted per statement by the retention sweep (bounded batches never block intake). */
  get retentionBatchSize() {
    return Math.min(50_000, Math.max(1, read("RETENTION_BATCH_SIZE")));
  },
  get chainRpcUrl(): string | undefined {
    return read("CHAIN_RPC_URL") || undefined;
  },
  /** Defaults to the local chain that `npm start` brings up (scripts/local-chain.mjs). */
  get chainRpcUrlTest() {
    return read("CHAIN_RPC_URL_TEST") || `http://127.0.0.1:${read("LOCAL_CHAIN_PORT")}`;
  },
  get fundingConfirmations() {
    return read("FUNDING_CONFIRMATIONS");
  },
  get fundingConfirmationsTest() {
    return read("FUNDING_CONFIRMATIONS_TEST");
  },
  /** BIP-39 mnemonic from which deposit addresses are derived (one index per business). */
  get depositMnemonic() {
    return read("DEPOSIT_MNEMONIC") ?? DEV_MNEMONIC;
  },
  /** The TEST deposit mnemonic named explicitly; unset, TEST uses a private DEPOSIT_MNEMONIC or the installation's own (chain/deposit-address.ts). */
  get depositMnemonicTest(): string | undefined {
    return read("DEPOSIT_MNEMONIC_TEST") || undefined;
  },
  /** How often scheduled payouts (autoPayoutEnabled) and unfinished payouts are run; 0 turns the schedule off. */
  get payoutIntervalMs() {
    return read("PAYOUT_INTERVAL_MS");
  },
  /** How long the payout run a referrer's withdrawal request starts waits, so that requests close together share a run (at most a minute). */
  get withdrawalRunDelayMs() {
    return Math.min(60_000, Math.max(0, read("WITHDRAWAL_RUN_DELAY_MS")));
  },
  /** A payout transaction unmined this long after sending, with a max fee under the base fee, is replaced. */
  get payoutStuckAfterMs() {
    return read("PAYOUT_STUCK_AFTER_MS");
  },
  /**
   * Gas limit of a payout transfer: 21,000 (a plain transfer) plus 9,000 for a contract wallet's
   * receive function (a proxy forwarding to its implementation and logging the deposit). A wallet
   * whose transfer needs more is refused. Never below 21,000.
   */
  get payoutMaxGas() {
    return BigInt(Math.max(21_000, read("PAYOUT_MAX_GAS")));
  },
  /**
   * A payout is held back (not sent, its rewards stay payable) while the gas it reserves would
   * exceed this percentage of the ETH it sends; 0 turns the check off.
   */
  get payoutMaxGasPercent() {
    return read("PAYOUT_MAX_GAS_PERCENT");
  },
  /** Recipients of one batch payout transaction at most (1–1000; 1 turns batches off; docs/payouts.md). */
  get payoutBatchSize() {
    return Math.min(1000, Math.max(1, read("PAYOUT_BATCH_SIZE")));
  },
  /**
   * The BatchPayout contract (contracts/BatchPayout.sol) on the LIVE chain; unset, LIVE pays one
   * transfer per participant. A local TEST chain uses the copy deployed at start.
   */
  get payoutBatchContract(): string | undefined {
    return read("PAYOUT_BATCH_CONTRACT") || undefined;
  },
  /** Raw link clicks are deleted this many days after the click; daily rollups are kept. */
  get clickRetentionDays() {
    return Math.max(1, read("CLICK_RETENTION_DAYS"));
  },
  /**
   * Clicks on one link recorded per client network (an IPv4 address, an IPv6 /64) per hour; past
   * it the visitor still lands, unrecorded. A user agent is the client's to choose, so per-visitor
   * counting alone would let one machine inflate a link's clicks at will.
   */
  get linkClicksPerNetworkHour() {
    return Math.max(1, read("LINK_CLICKS_PER_NETWORK_HOUR"));
  },
  /** How long /r/:code remembers a code's participant and link settings (seconds). */
  get linkCacheSeconds() {
    return Math.min(3600, read("LINK_CACHE_SECONDS"));
  },
  /** Where a link with an unknown code goes when the installation has several destinations. */
  get linkFallbackUrl(): string | undefined {
    const u = read("LINK_FALLBACK_URL");
    return u && /^https?:\/\//.test(u) ? u : undefined;
  },
  /** Longest a buffered link click waits for its batch insert (milliseconds). */
  get clickFlushMs() {
    return Math.min(600_000, Math.max(10, read("CLICK_FLUSH_MS")));
  },
  /** Most clicks kept in memory waiting for their batch insert (oldest dropped beyond, with a warning). */
  get clickBufferMax() {
    return Math.max(1000, read("CLICK_BUFFER_MAX"));
  },
  /** Block explorer base URL per environment (e.g. https://etherscan.io); none by default. Payout links: `{base}/tx/{hash}`. */
  explorerUrl(environment: "TEST" | "LIVE"): string | null {
    const v = environment === "LIVE" ? read("EXPLORER_URL") : read("EXPLORER_URL_TEST");
    return v && /^https?:\/\//.test(v) ? v.replace(/\/+$/, "") : null;
  },
  get isProduction() {
    return production();
  },
  /** Extra origins (comma-separated) allowed to call /api/auth/* and cookie-authenticated mutations from a browser. */
  get trustedOrigins(): string[] {
    return (read("TRUSTED_ORIGINS") ?? "").split(",").map((o) => o.trim().replace(/\/+$/, "")).filter(Boolean);
  },
  /** Better Auth's own rate limit; AUTH_RATE_LIMIT=0 turns it off (tests). */
  get authRateLimit() {
    return read("AUTH_RATE_LIMIT") !== "0";
  },
  /** PostgreSQL connections per process. */
  get databasePoolSize() {
    return Math.max(1, read("DATABASE_POOL_SIZE"));
  },
  /** MIGRATE_ON_START=1: migrations are applied on start on PostgreSQL too (PGlite always applies them). */
  get migrateOnStart() {
    return read("MIGRATE_ON_START") === "1";
  },
  /** DIRECT_SQL=0: bulk statements go through Prisma instead of straight to the connection (side-by-side measurements). */
  get directSqlOff() {
    return read("DIRECT_SQL") === "0";
  },
  /** REQUEST_COALESCING=0: every call runs alone (side-by-side measurements). */
  get requestCoalescingOff() {
    return read("REQUEST_COALESCING") === "0";
  },
  /** QUERY_PLAN_CACHE=0: Prisma compiles every read again. */
  get queryPlanCacheOff() {
    return read("QUERY_PLAN_CACHE") === "0";
  },
  /** BENCH_ROUTES=1 serves POST /bench/baseline (the benchmark's baseline route). */
  get benchRoutes() {
    return read("BENCH_ROUTES") === "1";
  },
};
