// In-process session resolution with the built-in provider: a remembered lookup is reused for
// SESSION_CACHE_SECONDS, but every reuse reads the session row and the membership, so sign-out,
// revocation, expiry and a removed membership take effect on the very next request.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { requireBusinessCaller } from "../trpc/init";
import { auth } from "./better-auth";
import { CLIENT_IP_HEADER } from "../shared/client-ip";
import { resolveSession, SESSION_MISS_BUDGET } from "./session";

const hex = () => randomBytes(5).toString("hex");

async function signUp() {
  const email = `s-${hex()}@example.com`;
  const res = await auth.api.signUpEmail({ body: { email, password: "correct-horse-battery", name: "Sam", businessName: "Session Co" } as never, asResponse: true });
  const { token } = (await res.json()) as { token: string };
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .find((c) => c.includes("session_token="))!;
  const user = await db.user.findUniqueOrThrow({ where: { email } });
  return { email, token, cookie, userId: user.id, bearer: new Headers({ authorization: `Bearer ${token}` }) };
}

const caller = (h: Headers) => requireBusinessCaller(() => resolveSession(h));

afterEach(() => {
  delete process.env.SESSION_CACHE_SECONDS;
});

describe("in-process session resolution", () => {
  it("reuses a lookup, with the membership read fresh beside the session row", async () => {
    const u = await signUp();
    const first = await resolveSession(u.bearer);
    expect(first).toMatchObject({ id: u.userId, email: u.email, role: "BUSINESS" });
    const again = await resolveSession(u.bearer);
    expect(again).toMatchObject({ id: u.userId, email: u.email, role: "BUSINESS", membership: { role: "OWNER" } });
    await expect(caller(u.bearer)).resolves.toMatchObject({ user: { id: u.userId }, membership: { role: "OWNER" } });
    // The cookie is its own credential and resolves to the same user.
    await expect(resolveSession(new Headers({ cookie: u.cookie }))).resolves.toMatchObject({ id: u.userId });
  });

  it("a sign-out is refused on the next request, even though the lookup was remembered", async () => {
    const u = await signUp();
    await resolveSession(u.bearer);
    await resolveSession(u.bearer);
    await auth.api.signOut({ headers: u.bearer });
    await expect(resolveSession(u.bearer)).resolves.toBeNull();
    await expect(caller(u.bearer)).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
  });

  it("a session deleted or expired in the database (another instance, revocation) is refused at once", async () => {
    const a = await signUp();
    const b = await signUp();
    for (const u of [a, b]) await resolveSession(u.bearer);
    await db.session.deleteMany({ where: { userId: a.userId } });
    await db.session.updateMany({ where: { userId: b.userId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(resolveSession(a.bearer)).resolves.toBeNull();
    await expect(resolveSession(b.bearer)).resolves.toBeNull();
  });

  it("a membership removed after the lookup was remembered is 403 on the next request", async () => {
    const u = await signUp();
    await caller(u.bearer);
    await caller(u.bearer);
    await db.member.deleteMany({ where: { userId: u.userId } });
    await expect(caller(u.bearer)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("SESSION_CACHE_SECONDS=0 looks every request up through Better Auth", async () => {
    process.env.SESSION_CACHE_SECONDS = "0";
    const u = await signUp();
    await resolveSession(u.bearer);
    const again = await resolveSession(u.bearer);
    expect(again).toMatchObject({ id: u.userId });
    expect(again).not.toHaveProperty("membership");
    await auth.api.signOut({ headers: u.bearer });
    await expect(resolveSession(u.bearer)).resolves.toBeNull();
  });

  it("garbage credentials are no session, and are never remembered", async () => {
    const h = new Headers({ cookie: `better-auth.session_token=${hex()}.${hex()}` });
    await expect(resolveSession(h)).resolves.toBeNull();
    await expect(resolveSession(h)).resolves.toBeNull();
    await expect(resolveSession(new Headers({ authorization: "Bearer nope" }))).resolves.toBeNull();
  });
});

describe("a flood of garbage credentials", () => {
  const from = (ip: string, h: Record<string, string>) => new Headers({ ...h, [CLIENT_IP_HEADER]: ip });
  const alnum = (n: number) => randomBytes(n).toString("base64").replace(/[^A-Za-z0-9]/g, "").padEnd(n, "x").slice(0, n);

  it("credentials no session could have are answered before any lookup, so they cost a client none of its budget", async () => {
    const ip = `198.51.100.${1 + (randomBytes(1)[0] % 200)}`;
    const u = await signUp();
    for (let i = 0; i < 3 * SESSION_MISS_BUDGET; i++) {
      await expect(resolveSession(from(ip, { cookie: `better-auth.session_token=${hex()}${i}` }))).resolves.toBeNull();
      await expect(resolveSession(from(ip, { cookie: `other=${hex()}`, authorization: `Bearer ${hex()}.${i}` }))).resolves.toBeNull();
    }
    await expect(resolveSession(from(ip, { authorization: `Bearer ${u.token}` }))).resolves.toMatchObject({ id: u.userId });
  });

  it("a client whose session-shaped credentials keep missing is refused further lookups (429), other clients are not", async () => {
    const ip = `203.0.113.${1 + (randomBytes(1)[0] % 200)}`;
    const u = await signUp();
    for (let i = 0; i < SESSION_MISS_BUDGET; i++) {
      await expect(resolveSession(from(ip, { authorization: `Bearer ${alnum(32)}` }))).resolves.toBeNull();
    }
    await expect(resolveSession(from(ip, { authorization: `Bearer ${alnum(32)}` }))).rejects.toMatchObject({ code: "RATE_LIMITED" });
    await expect(resolveSession(from(ip, { authorization: `Bearer ${u.token}` }))).rejects.toMatchObject({ code: "RATE_LIMITED" });
    // Another client, and a session remembered before, are answered as usual.
    await expect(resolveSession(from("192.0.2.77", { authorization: `Bearer ${u.token}` }))).resolves.toMatchObject({ id: u.userId });
    await expect(resolveSession(from(ip, { authorization: `Bearer ${u.token}` }))).resolves.toMatchObject({ id: u.userId });
  });
});
