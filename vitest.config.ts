import path from "node:path";
import { defineConfig } from "vitest/config";
import { LongestFirst } from "./tests/support/sequencer";

// Three projects of Vitest tests (the browser layer is Playwright, playwright.config.ts):
//   pure: pure code (the rules core's decisions, its property tests), `*.pure.test.ts`: no
//         database and no setup; `npm run test:props` runs the property tests at a higher count.
//   unit: pure and domain tests, in process, colocated with the code (`server/**/*.test.ts`).
//         Each test file starts on an empty migrated database (embedded PGlite: one per worker
//         process, emptied between files; or a fresh PostgreSQL database cloned from a migrated
//         template when TEST_DB=postgres): tests/support/unit-setup.ts.
//         No `next build`, no HTTP server, no chain.
//   http: the real production build (`next start`) over HTTP, plus the local chain
//         (`tests/http/**`, `tests/chain/**`): status codes, headers, auth, REST face, CORS,
//         money on the chain, and end-to-end flows.
// `npm test` (scripts/test.mjs) runs both on PGlite and on PostgreSQL.
const shared = {
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
};

export default defineConfig({
  ...shared,
  test: {
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        ...shared,
        test: {
          name: "unit",
          include: ["server/**/*.test.ts", "scripts/**/*.test.ts", "bench/**/*.test.ts", "sdk/src/**/*.test.ts"],
          exclude: ["**/node_modules/**", "**/*.pure.test.ts"],
          globalSetup: ["tests/support/unit-global-setup.ts"],
          setupFiles: ["tests/support/unit-setup.ts"],
          pool: "forks",
          // A worker process runs file after file with its modules loaded and its database open;
          // unit-setup.ts empties the database and undoes environment overrides between files.
          isolate: false,
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        ...shared,
        test: {
          // Pure code (the rules core, and any `*.pure.test.ts`): no database, no setup, milliseconds.
          name: "pure",
          include: ["server/**/*.pure.test.ts", "components/**/*.pure.test.ts"],
          pool: "threads",
          testTimeout: 60_000,
        },
      },
      {
        ...shared,
        test: {
          name: "http",
          include: ["tests/http/**/*.test.ts", "tests/chain/**/*.test.ts"],
          globalSetup: ["tests/support/global-setup.ts"],
          setupFiles: ["tests/support/worker-setup.ts"],
          pool: "forks",
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
