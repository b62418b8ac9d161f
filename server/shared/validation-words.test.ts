// Form errors in words: a schema without its own message answers words, not a validator's raw text.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { toAppError } from "./errors";
import { createTierInput } from "../domain/tiers/schemas";
import { addMemberInput } from "../domain/members/schemas";
import { createWebhookInput } from "../domain/webhooks/schemas";

const details = (schema: z.ZodType, input: unknown) => {
  const r = schema.safeParse(input);
  expect(r.success).toBe(false);
  return (toAppError(r.error).details as Array<{ path: string; message: string }>).map((d) => [d.path, d.message]);
};

describe("validation messages in words", () => {
  it("tiers, members and webhooks: required, too long, wrong type, unknown field, not an email, not in the list", () => {
    expect(details(createTierInput, { name: "", minReferrals: "5", referralRewardEth: "0.1", extra: 1 })).toEqual([
      ["name", "Required: must not be empty"],
      ["minReferrals", "Must be a number"],
      ["", "Unknown field: extra"],
    ]);
    expect(details(createTierInput, { name: "x".repeat(101), minReferrals: -1 })).toEqual([
      ["name", "Must be at most 100 characters"],
      ["minReferrals", "Must be 0 or more"],
      ["referralRewardEth", "Required"],
    ]);
    expect(details(addMemberInput, { email: "nope", role: "OWNER" })).toEqual([
      ["email", "Must be an email address such as name@example.com"],
      ["role", "Must be one of: ADMIN, MEMBER"],
    ]);
    for (const [, message] of details(createWebhookInput, { url: "", environment: "PROD", events: "all" })) {
      expect(message).not.toMatch(/expected|received|Invalid input|>=|<=/);
    }
  });
});
