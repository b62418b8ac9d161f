// The benchmark starts the app exactly as the integration tests do: the production build
// (scripts/serve.mjs) on a free port, ready once /api/health answers.
export { ROOT, startApp as startBenchApp, type RunningApp as BenchApp } from "../tests/support/app";

/**
 * The app's intake limits lifted: the benchmarks measure how fast the product takes and processes
 * requests from a few connections on one key, not its per-key fairness (rate per event, batches in
 * progress per key and per business: server/sdk/fair-intake.test.ts).
 */
export const UNCAPPED_INTAKE = {
  RATE_LIMIT_PER_SECOND: "100000000",
  RATE_LIMIT_BURST: "200000000",
  RATE_LIMIT_PUBLISHABLE_PER_SECOND: "100000000",
  RATE_LIMIT_PUBLISHABLE_BURST: "200000000",
  TRACK_BATCH_CONCURRENCY_PER_KEY: "100",
  TRACK_BATCH_CONCURRENCY_PER_BUSINESS: "100",
};
