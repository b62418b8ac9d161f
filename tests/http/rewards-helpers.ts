// Helpers shared by the rewards/config/events/analytics HTTP tests.
import { expect } from "vitest";
import { baseUrl, createKey, request, signUp, uniqueEmail, type Owner } from "../support/http";
import { fundTestPool } from "../support/chain";

export { fundTestPool };

/** A business with a TEST key, reward amounts set, and (optionally) a funded TEST pool. */
export async function rewardsBusiness(
  opts: { referralRewardEth?: string; bonusEth?: string; fundEth?: string; general?: Record<string, unknown>; spend?: Record<string, unknown>; url?: string } = {},
) {
  const owner = await signUp({ url: opts.url });
  const { secret } = await createKey(owner, "TEST");
  const g = await owner.call("PATCH", "/business/config/general", {
    referralRewardEth: opts.referralRewardEth ?? "0.01",
    bonusEth: opts.bonusEth ?? "0",
    eventProcessing: "SYNC",
    ...opts.general,
  });
  expect(g.status, JSON.stringify(g.body)).toBe(200);
  if (opts.spend) {
    const s = await owner.call("PATCH", "/business/config/spend", opts.spend);
    expect(s.status, JSON.stringify(s.body)).toBe(200);
  }
  if (opts.fundEth) await fundTestPool(owner, opts.fundEth);
  return { owner, secret };
}

const sdkAt = (url: string | undefined, secret: string, method: string, path: string, body?: unknown) =>
  request(url ?? baseUrl(), method, path, body, { "x-api-key": secret });

export async function participant(secret: string, body: Record<string, unknown> = {}, url?: string) {
  const r = await sdkAt(url, secret, "POST", "/sdk/participants", { email: uniqueEmail("p"), ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { participantId: string; referralCode: string };
}

/** POST /track with a referrer and a new referred user (synchronous when the business is SYNC). */
export async function trackReferral(secret: string, referralCode: string, opts: { eventName?: string; referredUserEmail?: string; campaign?: string; url?: string } = {}) {
  return sdkAt(opts.url, secret, "POST", "/track", {
    eventName: opts.eventName ?? "purchase",
    referrer: referralCode,
    metadata: { referredUserEmail: opts.referredUserEmail ?? uniqueEmail("referred"), ...(opts.campaign ? { campaign: opts.campaign } : {}) },
  });
}

export async function balanceEth(owner: Owner, environment: "TEST" | "LIVE" = "TEST") {
  const r = await owner.call("GET", `/business/balance?environment=${environment}`);
  expect(r.status).toBe(200);
  return r.body.balanceEth as string;
}

/** Invites a member (or an admin) and signs them up through the link: their session belongs to the owner's business. */
export async function addMember(owner: Owner, role: "MEMBER" | "ADMIN" = "MEMBER") {
  const email = uniqueEmail("member");
  const r = await owner.call("POST", "/business/members", { email, role });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return signUp({ email, inviteUrl: r.body.inviteUrl });
}
