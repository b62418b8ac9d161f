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
  get authSecret() {
    return process.env.BETTER_AUTH_SECRET ?? "dev-only-secret-change-me-in-production-0123456789";
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
  /** Inngest is used when an event key is configured or INNGEST_DEV is set; else the embedded runner. */
  get inngestEnabled() {
    return !!process.env.INNGEST_EVENT_KEY || (!!process.env.INNGEST_DEV && process.env.INNGEST_DEV !== "0");
  },
  get jobMaxAttempts() {
    return int(process.env.JOB_MAX_ATTEMPTS, 5);
  },
  get jobPollMs() {
    return int(process.env.JOB_POLL_MS, 250);
  },
  get jobLeaseMs() {
    return int(process.env.JOB_LEASE_MS, 30_000);
  },
  /** Set to 0 to disable the embedded runner in this process (e.g. a web-only instance). */
  get embeddedRunner() {
    return process.env.EMBEDDED_RUNNER !== "0";
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
  get isProduction() {
    return process.env.NODE_ENV === "production";
  },
};
