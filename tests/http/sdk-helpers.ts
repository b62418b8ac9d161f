// Helpers shared by the SDK/jobs HTTP tests.
import { expect } from "vitest";
import { baseUrl, request, type Owner } from "../support/http";

export const sdkAt = (url: string, secret: string) => (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  request(url, method, path, body, { "x-api-key": secret, ...headers });

/** Polls GET /sdk/jobs/:jobId until the job is finished (SUCCEEDED or FAILED). */
export async function waitForJob(secret: string, jobId: string, url = baseUrl(), timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await request(url, "GET", `/sdk/jobs/${jobId}`, undefined, { "x-api-key": secret });
    expect(r.status).toBe(200);
    if (r.body.status === "SUCCEEDED" || r.body.status === "FAILED") return r.body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** A participant (referrer) with its referral code. */
export async function makeParticipant(secret: string, body: Record<string, unknown>, url = baseUrl()) {
  const r = await request(url, "POST", "/sdk/participants", body, { "x-api-key": secret });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { participantId: string; referralCode: string; handle: string | null; created: boolean };
}

export async function setEventProcessing(owner: Owner, eventProcessing: "AUTO" | "SYNC" | "ASYNC") {
  const r = await owner.call("PATCH", "/business/config/general", { eventProcessing });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}
