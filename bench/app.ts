// The benchmark starts the app exactly as the integration tests do: the production build
// (`next start`) on a free port, ready once /api/health answers.
export { ROOT, startApp as startBenchApp, type RunningApp as BenchApp } from "../tests/support/app";
