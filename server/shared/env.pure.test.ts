// The environment's rules (env.ts): a malformed integer is refused, naming its variable, never
// replaced by its default; in production both secrets are required (32 characters or more) and
// the public development mnemonic is refused; a build (`next build`) is no production process.
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkEnv, DEV_MNEMONIC, env } from "./env";

const SECRET = "s".repeat(32);
const production = { NODE_ENV: "production", BETTER_AUTH_SECRET: SECRET, WEBHOOK_SECRET_KEY: `${SECRET}-webhooks` };

afterEach(() => vi.unstubAllEnvs());

describe("checkEnv (at a process's start)", () => {
  it("passes with nothing set outside production: every variable has its default", () => {
    expect(() => checkEnv({})).not.toThrow();
  });

  it("refuses a malformed integer, naming the variable", () => {
    expect(() => checkEnv({ JOB_LEASE_MS: "5s" })).toThrow(/JOB_LEASE_MS must be a whole number/);
    expect(() => checkEnv({ PORT: "-1" })).toThrow(/PORT/);
    expect(() => checkEnv({ JOB_LEASE_MS: "5000", PORT: "8080" })).not.toThrow();
  });

  it("in production requires both secrets, 32 characters or more", () => {
    expect(() => checkEnv({ NODE_ENV: "production" })).toThrow(/BETTER_AUTH_SECRET is required in production.*WEBHOOK_SECRET_KEY is required in production/);
    expect(() => checkEnv({ ...production, BETTER_AUTH_SECRET: "short" })).toThrow(/BETTER_AUTH_SECRET must be 32 characters or more/);
    expect(() => checkEnv({ ...production, WEBHOOK_SECRET_KEY: "" })).toThrow(/WEBHOOK_SECRET_KEY is required/);
    expect(() => checkEnv(production)).not.toThrow();
  });

  it("in production refuses the public development mnemonic, however it is spaced or cased", () => {
    expect(() => checkEnv({ ...production, DEPOSIT_MNEMONIC: ` ${DEV_MNEMONIC.toUpperCase().replaceAll(" ", "  ")} ` })).toThrow(/DEPOSIT_MNEMONIC is the public development mnemonic/);
    expect(() => checkEnv({ DEPOSIT_MNEMONIC: DEV_MNEMONIC })).not.toThrow();
  });

  it("a build (next build: NODE_ENV=production, no secrets yet) is no production process", () => {
    expect(() => checkEnv({ NODE_ENV: "production", NEXT_PHASE: "phase-production-build" })).not.toThrow();
  });
});

describe("env (each read)", () => {
  it("reads an integer when it is read, its default when unset or empty, and throws on a malformed one", () => {
    vi.stubEnv("JOB_LEASE_MS", "7000");
    expect(env.jobLeaseMs).toBe(7000);
    vi.stubEnv("JOB_LEASE_MS", "");
    expect(env.jobLeaseMs).toBe(30_000);
    vi.stubEnv("JOB_LEASE_MS", "7000ms");
    expect(() => env.jobLeaseMs).toThrow(/JOB_LEASE_MS/);
  });

  it("in production a missing secret throws when read; outside it the development default serves, and the webhook key falls back to the auth secret", () => {
    vi.stubEnv("BETTER_AUTH_SECRET", "");
    vi.stubEnv("WEBHOOK_SECRET_KEY", "");
    vi.stubEnv("NODE_ENV", "test");
    expect(env.webhookSecretKey).toBe(env.authSecret);
    vi.stubEnv("NODE_ENV", "production");
    expect(() => env.authSecret).toThrow(/BETTER_AUTH_SECRET/);
    vi.stubEnv("BETTER_AUTH_SECRET", SECRET);
    expect(env.authSecret).toBe(SECRET);
    expect(() => env.webhookSecretKey).toThrow(/WEBHOOK_SECRET_KEY/);
  });
});
