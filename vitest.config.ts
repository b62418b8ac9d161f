import path from "node:path";
import { defineConfig } from "vitest/config";

// Data-layer and API tests. TEST_DB=pglite (default) or TEST_DB=postgres picks the database;
// `npm test` runs the suite on both. HTTP tests talk to a real `next start` of the production
// build started by tests/support/global-setup.ts.
export default defineConfig({
  resolve: { alias: { "@": path.resolve(__dirname) } },
  test: {
    include: ["server/**/*.test.ts", "tests/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/worker-setup.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    reporters: ["default"],
  },
});
