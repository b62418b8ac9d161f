// Every environment variable the service reads, in one place, with its default.
// The defaults run the whole product on one machine with nothing else installed.
const int = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) ? Number(v) : d);

export const env = {
  get port() {
    return int(process.env.PORT, 3000);
  },
  /** Public base URL of this app. */
  get appUrl() {
    return (process.env.APP_URL ?? `http://127.0.0.1:${this.port}`).replace(/\/$/, "");
  },
  /** Session provider: `{AUTH_URL}/api/auth/get-session`. Defaults to this app's Better Auth. */
  get authUrl() {
    return (process.env.AUTH_URL ?? this.appUrl).replace(/\/$/, "");
  },
  /** True when the session provider is this app's own Better Auth (sessions resolved in process). */
  get authIsSelf() {
    return !process.env.AUTH_URL || this.authUrl === this.appUrl;
  },
  /** How long a positive session lookup is reused (seconds, 0 = never); see server/auth/session.ts. */
  get sessionCacheSeconds() {
    return Math.min(60, int(process.env.SESSION_CACHE_SECONDS, 5));
  },
  /** Reverse proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For is believed; default none. */
  get trustedProxies() {
    return process.env.TRUSTED_PROXIES ?? "";
  },
  get authSecret() {
    return process.env.BETTER_AUTH_SECRET ?? "dev-only-secret-change-me-in-production-0123456789";
  },
  /** Key material for encrypting webhook signing secrets at rest (HKDF → AES-256-GCM). */
  get webhookSecretKey() {
    return process.env.WEBHOOK_SECRET_KEY || this.authSecret;
  },
  /** postgres://… → PostgreSQL; unset → embedded PGlite. */
  get databaseUrl(): string | undefined {
    const u = process.env.DATABASE_URL;
    return u && /^postgres(ql)?:\/\//.test(u) && !u.includes("pglite") ? u : undefined;
  },
  get pgliteDir() {
    return process.env.PGLITE_DIR ?? ".data/pglite";
  },
  get redisUrl() {
    return process.env.REDIS_URL || undefined;
  },
  get rateLimitPerSecond() {
    return int(process.env.RATE_LIMIT_PER_SECOND, 50);
  },
  get rateLimitBurst() {
    return int(process.env.RATE_LIMIT_BURST, 100);
  },
  /** Publishable keys (browser bundles, anyone can copy them) get a lower sustained rate by default. */
  get rateLimitPublishablePerSecond() {
    return int(process.env.RATE_LIMIT_PUBLISHABLE_PER_SECOND, 10);
  },
  get rateLimitPublishableBurst() {
    return int(process.env.RATE_LIMIT_PUBLISHABLE_BURST, 100);
  },
  /** /track/batch requests one API key may have in progress at once (more: 429). */
  get batchConcurrencyPerKey() {
    return Math.max(1, int(process.env.TRACK_BATCH_CONCURRENCY_PER_KEY, 2));
  },
  /** /track/batch requests one business (all its keys) may have in progress at once (more: 429). */
  get batchConcurrencyPerBusiness() {
    return Math.max(1, int(process.env.TRACK_BATCH_CONCURRENCY_PER_BUSINESS, 4));
  },
  /**
   * Most events of a /track/batch written in one transaction; null when unset: 100 (the whole
   * batch) on PostgreSQL, 5 on PGlite, whose one connection every other request waits for.
   */
  get batchTxEvents(): number | null {
    const n = int(process.env.TRACK_BATCH_TX_EVENTS, 0);
    return n > 0 ? Math.min(100, n) : null;
  },
  /** /track/batch requests writing at once in this process; null when unset: 1 on PGlite, unbounded on PostgreSQL. */
  get batchConcurrencyGlobal(): number | null {
    const n = int(process.env.TRACK_BATCH_CONCURRENCY, 0);
    return n > 0 ? n : null;
  },
  /**
   * "1" allows loopback webhook endpoints on TEST (local development); off by default, so that a
   * business cannot use deliveries to learn which of the server's own ports answer.
   */
  get webhookAllowLoopback() {
    return process.env.WEBHOOK_ALLOW_LOOPBACK === "1";
  },
  /** Test sends (POST /business/webhooks/{id}/test) per endpoint per minute. */
  get webhookTestPerMinute() {
    return Math.max(1, int(process.env.WEBHOOK_TEST_PER_MINUTE, 10));
  },
  /** Deliveries accepted per Stripe connection per minute (its webhook URL); beyond, 429 and Stripe retries. */
  get stripeWebhookPerMinute() {
    return Math.max(1, int(process.env.STRIPE_WEBHOOK_PER_MINUTE, 600));
  },
  /** Inngest is used when an event key is configured or INNGEST_DEV is set; else the embedded runner. */
  get inngestEnabled() {
    return !!process.env.INNGEST_EVENT_KEY || (!!process.env.INNGEST_DEV && process.env.INNGEST_DEV !== "0");
  },
  /** Longest a statement may run, lock waits included (PostgreSQL statement_timeout; ms). */
  get dbStatementTimeoutMs() {
    return Math.max(100, int(process.env.DATABASE_STATEMENT_TIMEOUT_MS, 20_000));
  },
  /** Longest a transaction may sit idle between statements before the server ends it (ms). */
  get dbIdleInTransactionMs() {
    return Math.max(100, int(process.env.DATABASE_IDLE_IN_TRANSACTION_MS, 60_000));
  },
  /** When a pooled connection first drops its cached query plans, the interval then doubling (ms, 0 = never); server/db/client.ts. */
  get dbPlanRefreshMs() {
    return int(process.env.DATABASE_PLAN_REFRESH_MS, 2_000);
  },
  get jobMaxAttempts() {
    return int(process.env.JOB_MAX_ATTEMPTS, 5);
  },
  get jobPollMs() {
    return int(process.env.JOB_POLL_MS, 250);
  },
  /** PGlite: the longest pause between an idle runner's polls (ms); server/jobs/runner.ts pollPause. */
  get jobIdlePollMs() {
    return int(process.env.JOB_IDLE_POLL_MS, 1000);
  },
  /** How often a runner checks whether the job path's tables outgrew their planner statistics (0: never). */
  get tableStatsCheckMs() {
    return int(process.env.TABLE_STATS_CHECK_MS, 2_000);
  },
  get jobLeaseMs() {
    return int(process.env.JOB_LEASE_MS, 30_000);
  },
  /**
   * Whether this process drains the job table (embedded runner + retention schedule). On by
   * default, so a plain `npm start` processes its own queue. JOB_RUNNER=off (or the older
   * EMBEDDED_RUNNER=0) makes a web-only instance; `npm run worker` runs a drain-only process.
   */
  get embeddedRunner() {
    const v = (process.env.JOB_RUNNER ?? "").toLowerCase();
    return process.env.EMBEDDED_RUNNER !== "0" && !["off", "0", "false", "no"].includes(v);
  },
  /** Jobs a runner claims per poll; events of one business+environment among them run as one batch. */
  get jobBatchSize() {
    return Math.min(1000, Math.max(1, int(process.env.JOB_BATCH_SIZE, 1000)));
  },
  /**
   * Most jobs in one batch transaction (one business+environment, one pool lock); null when unset:
   * the runner then takes 1000 on PostgreSQL and 500 on PGlite (one connection for the whole
   * process, which a batch holds until it commits: every request waits behind it).
   */
  get jobBatchTxSize(): number | null {
    const n = int(process.env.JOB_BATCH_TX_SIZE, 0);
    return n > 0 ? Math.min(1000, n) : null;
  },
  /**
   * Webhook deliveries a runner has in flight at once, in their own pool beside the event loop
   * (1–100); one business holds at most half of them (runner.ts jobPool).
   */
  /** smtp://user:pass@host:port or smtps://…: where emails are sent; unset: they are kept as NOT_CONFIGURED (docs/email.md). */
  get smtpUrl(): string | undefined {
    const u = process.env.SMTP_URL;
    return u && /^smtps?:\/\//.test(u) ? u : undefined;
  },
  /** "1": accept the SMTP server's certificate without verifying it (a local relay). */
  get smtpTlsInsecure() {
    return process.env.SMTP_TLS_INSECURE === "1";
  },
  /** The sender of every email; a business's fromName replaces the name. */
  get emailFrom() {
    return process.env.EMAIL_FROM || "Referrals <no-reply@localhost>";
  },
  /** Longest wait for the SMTP server to connect, greet or answer (ms). */
  get smtpTimeoutMs() {
    return Math.min(60_000, Math.max(500, int(process.env.SMTP_TIMEOUT_MS, 10_000)));
  },
  /** Emails being sent at once (their own pool: a hanging server holds up no other job). */
  get emailConcurrency() {
    return Math.min(50, Math.max(1, int(process.env.EMAIL_CONCURRENCY, 4)));
  },
  get webhookConcurrency() {
    return Math.min(100, Math.max(1, int(process.env.WEBHOOK_CONCURRENCY, 32)));
  },
  /**
   * While the runner has a backlog of events (its last claim of event jobs was full, or a full
   * claim is still being decided), the webhook pool takes a business's jobs only once due for at
   * least this long (ms, 0–60000; 0: it never yields) if that business is in a burst (queued
   * events, or events of a full claim still being decided): its burst of events is decided first,
   * and no message waits longer than this for it. Other businesses' messages do not wait.
   */
  get webhookYieldMs() {
    return Math.min(60_000, Math.max(0, int(process.env.WEBHOOK_YIELD_MS, 30_000)));
  },
  /** Payout runs a runner has in flight at once, in their own pool beside the event loop (1–20). */
  get payoutConcurrency() {
    return Math.min(20, Math.max(1, int(process.env.PAYOUT_CONCURRENCY, 2)));
  },
  /**
   * Finished (SUCCEEDED / FAILED) jobs are deleted this many days after they finished; at least 1,
   * as long as an idempotent replay may still name a job (its key's 24 hours) for GET /sdk/jobs/:id.
   */
  get jobRetentionDays() {
    return Math.max(1, int(process.env.JOB_RETENTION_DAYS, 7));
  },
  /** How often the embedded retention sweep runs (the Inngest cron runs hourly). */
  get retentionIntervalMs() {
    return int(process.env.RETENTION_INTERVAL_MS, 3_600_000);
  },
  /** How often the embedded schedule queues the daily proofs of liabilities that are due (0: never; the Inngest cron runs hourly). */
  get proofScheduleMs() {
    return Math.max(0, int(process.env.PROOF_SCHEDULE_MS, 3_600_000));
  },
  /** Rows deleted per statement by the retention sweep (bounded batches never block intake). */
  get retentionBatchSize() {
    return Math.min(50_000, Math.max(1, int(process.env.RETENTION_BATCH_SIZE, 1000)));
  },
  get chainRpcUrl(): string | undefined {
    return process.env.CHAIN_RPC_URL || undefined;
  },
  /** Defaults to the local chain that `npm start` brings up (scripts/local-chain.mjs). */
  get chainRpcUrlTest() {
    return process.env.CHAIN_RPC_URL_TEST || `http://127.0.0.1:${int(process.env.LOCAL_CHAIN_PORT, 8545)}`;
  },
  get fundingConfirmations() {
    return int(process.env.FUNDING_CONFIRMATIONS, 1);
  },
  get fundingConfirmationsTest() {
    return int(process.env.FUNDING_CONFIRMATIONS_TEST, 1);
  },
  /** BIP-39 mnemonic from which deposit addresses are derived (one index per business). */
  get depositMnemonic() {
    return process.env.DEPOSIT_MNEMONIC ?? "test test test test test test test test test test test junk";
  },
  /** The TEST deposit mnemonic named explicitly; unset, TEST uses a private DEPOSIT_MNEMONIC or the installation's own (chain/deposit-address.ts). */
  get depositMnemonicTest(): string | undefined {
    return process.env.DEPOSIT_MNEMONIC_TEST || undefined;
  },
  /** How often scheduled payouts (autoPayoutEnabled) and unfinished payouts are run; 0 turns the schedule off. */
  get payoutIntervalMs() {
    return int(process.env.PAYOUT_INTERVAL_MS, 60_000);
  },
  /** How long the payout run a referrer's withdrawal request starts waits, so that requests close together share a run (at most a minute). */
  get withdrawalRunDelayMs() {
    return Math.min(60_000, Math.max(0, int(process.env.WITHDRAWAL_RUN_DELAY_MS, 5_000)));
  },
  /** A payout transaction unmined this long after sending, with a max fee under the base fee, is replaced. */
  get payoutStuckAfterMs() {
    return int(process.env.PAYOUT_STUCK_AFTER_MS, 15_000);
  },
  /**
   * Gas limit of a payout transfer: 21,000 (a plain transfer) plus 9,000 for a contract wallet's
   * receive function (a proxy forwarding to its implementation and logging the deposit). A wallet
   * whose transfer needs more is refused. Never below 21,000.
   */
  get payoutMaxGas() {
    return BigInt(Math.max(21_000, int(process.env.PAYOUT_MAX_GAS, 30_000)));
  },
  /**
   * A payout is held back (not sent, its rewards stay payable) while the gas it reserves would
   * exceed this percentage of the ETH it sends; 0 turns the check off.
   */
  get payoutMaxGasPercent() {
    return int(process.env.PAYOUT_MAX_GAS_PERCENT, 10);
  },
  /** Recipients of one batch payout transaction at most (1–1000; 1 turns batches off; docs/payouts.md). */
  get payoutBatchSize() {
    return Math.min(1000, Math.max(1, int(process.env.PAYOUT_BATCH_SIZE, 200)));
  },
  /**
   * The BatchPayout contract (contracts/BatchPayout.sol) on the LIVE chain; unset, LIVE pays one
   * transfer per participant. A local TEST chain uses the copy deployed at start.
   */
  get payoutBatchContract(): string | undefined {
    return process.env.PAYOUT_BATCH_CONTRACT || undefined;
  },
  /** Raw link clicks are deleted this many days after the click; daily rollups are kept. */
  get clickRetentionDays() {
    return Math.max(1, int(process.env.CLICK_RETENTION_DAYS, 90));
  },
  /**
   * Clicks on one link recorded per client network (an IPv4 address, an IPv6 /64) per hour; past
   * it the visitor still lands, unrecorded. A user agent is the client's to choose, so per-visitor
   * counting alone would let one machine inflate a link's clicks at will.
   */
  get linkClicksPerNetworkHour() {
    return Math.max(1, int(process.env.LINK_CLICKS_PER_NETWORK_HOUR, 30));
  },
  /** How long /r/:code remembers a code's participant and link settings (seconds). */
  get linkCacheSeconds() {
    return Math.min(3600, int(process.env.LINK_CACHE_SECONDS, 30));
  },
  /** Where a link with an unknown code goes when the installation has several destinations. */
  get linkFallbackUrl(): string | undefined {
    const u = process.env.LINK_FALLBACK_URL;
    return u && /^https?:\/\//.test(u) ? u : undefined;
  },
  /** Longest a buffered link click waits for its batch insert (milliseconds). */
  get clickFlushMs() {
    return Math.min(600_000, Math.max(10, int(process.env.CLICK_FLUSH_MS, 500)));
  },
  /** Most clicks kept in memory waiting for their batch insert (oldest dropped beyond, with a warning). */
  get clickBufferMax() {
    return Math.max(1000, int(process.env.CLICK_BUFFER_MAX, 100_000));
  },
  /** Block explorer base URL per environment (e.g. https://etherscan.io); none by default. Payout links: `{base}/tx/{hash}`. */
  explorerUrl(environment: "TEST" | "LIVE"): string | null {
    const v = environment === "LIVE" ? process.env.EXPLORER_URL : process.env.EXPLORER_URL_TEST;
    return v && /^https?:\/\//.test(v) ? v.replace(/\/+$/, "") : null;
  },
  get isProduction() {
    return process.env.NODE_ENV === "production";
  },
};
