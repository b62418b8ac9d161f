// HTTP helpers for integration tests: sign up a business, call its REST API, use API keys.
import { inject } from "vitest";
import { randomBytes } from "node:crypto";

export const baseUrl = () => inject("baseUrl");

export interface Owner {
  token: string;
  email: string;
  userId: string;
  /** fetch a /business route as this user (JSON in, parsed JSON out). */
  call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any; headers: Headers }>;
}

export const uniqueEmail = (tag = "user") => `${tag}-${randomBytes(6).toString("hex")}@example.com`;

/** Signs up a new business owner, or (with `inviteUrl`, the link POST /business/members answered) joins that business. */
export async function signUp(opts: { email?: string; businessName?: string; name?: string; url?: string; inviteUrl?: string } = {}): Promise<Owner> {
  const url = opts.url ?? baseUrl();
  const email = opts.email ?? uniqueEmail("owner");
  const joining = opts.inviteUrl ? { inviteToken: new URL(opts.inviteUrl).searchParams.get("invite") } : { businessName: opts.businessName ?? "Acme Test" };
  const res = await fetch(`${url}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email, password: "correct-horse-battery", name: "Test Owner", ...joining }),
  });
  const body = (await res.json()) as { token?: string; user?: { id: string } };
  if (!res.ok || !body.token) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(body)}`);
  const token = body.token;
  return { token, email, userId: body.user!.id, call: (m, p, b) => request(url, m, p, b, { authorization: `Bearer ${token}` }) };
}

/** Invites a new email into the owner's business (as MEMBER or ADMIN) and signs it up through the link. */
export async function inviteMember(owner: Owner, role: "MEMBER" | "ADMIN" = "MEMBER"): Promise<Owner> {
  const email = uniqueEmail(role.toLowerCase());
  const r = await owner.call("POST", "/business/members", { email, role });
  if (r.status !== 200) throw new Error(`invite failed: ${r.status} ${JSON.stringify(r.body)}`);
  return signUp({ email, inviteUrl: r.body.inviteUrl });
}

export async function request(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as any, headers: res.headers };
}

/** Creates an API key for the owner and returns its secret and id. */
export async function createKey(owner: Owner, environment: "TEST" | "LIVE" = "TEST", extra: Record<string, unknown> = {}) {
  const r = await owner.call("POST", "/business/api-keys", { environment, ...extra });
  if (r.status !== 200) throw new Error(`create key failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { apiKeyId: r.body.apiKeyId as string, secret: r.body.secret as string };
}

/** Calls an SDK route with an API key. */
export const sdk = (secret: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  request(baseUrl(), method, path, body, { "x-api-key": secret, ...headers });
