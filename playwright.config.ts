// Dashboard e2e: a real Chromium against the production build (`next start`) on a fresh
// database, started by e2e/server.mjs. Debian's /usr/bin/chromium is used when present
// (Playwright cannot download its own browser here); elsewhere Playwright's own Chromium.
import { defineConfig, devices } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

// The config is evaluated in the runner and in every worker: pick the port once and hand it
// down through the environment, which workers inherit.
if (!process.env.E2E_PORT) {
  process.env.E2E_PORT = execFileSync(process.execPath, ["-e", "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})"]).toString().trim();
}
const baseURL = process.env.E2E_BASE_URL ?? `http://127.0.0.1:${process.env.E2E_PORT}`;
const systemChromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results/e2e",
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: process.env.CI ? 2 : 3,
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  use: {
    baseURL,
    // Recorded on a failed test's retry only: recording every test (screenshots and snapshots at
    // each action) was the largest part of the layer's CPU.
    trace: "on-first-retry",
    screenshot: "only-on-failure",
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        viewport: { width: 1280, height: 900 },
        launchOptions: {
          executablePath: process.env.PLAYWRIGHT_CHROMIUM_PATH ?? systemChromium,
          args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update"],
        },
      },
    },
  ],
  webServer: process.env.E2E_BASE_URL
    ? undefined
    : {
        command: "node e2e/server.mjs",
        url: `${baseURL}/api/health`,
        timeout: 300_000,
        reuseExistingServer: false,
        // SIGTERM first: e2e/server.mjs stops the app and the chain, and removes its database.
        gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
        stdout: "ignore",
        stderr: "pipe",
      },
});
