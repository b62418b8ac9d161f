// Roles that match money, in process through the REST face with real Better Auth sessions:
// what changes what the pool pays is for the owner or an ADMIN the owner grants; a MEMBER reads
// and reviews (403 NOT_OWNER on a write). Joining a business takes the invitation's token.
import { describe, expect, it } from "vitest";
import { auth } from "../auth/better-auth";
import { db } from "../db/client";
import { addMember } from "../domain/members/service";
import { env } from "../shared/env";
import { handleBusinessRest } from "../rest/business-rest";
import { appRouter } from "../routers/_app";
import { createContext } from "./init";

let seq = 0;
const email = (p: string) => `${p}-${Date.now()}-${++seq}@example.com`;

async function signUp(body: Record<string, string>): Promise<string> {
  const r = await auth.api.signUpEmail({ body: { password: "correct-horse-battery", name: "N", ...body } as never });
  return (r as { token: string }).token;
}

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await handleBusinessRest(
    new Request(`http://127.0.0.1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer, read loosely like tests/support/http.ts
  const answer: any = await res.json();
  return { status: res.status, body: answer };
}

/** An owner, and a person who joined through the invitation link as `role`. */
async function team(role: "MEMBER" | "ADMIN" = "MEMBER") {
  const owner = await signUp({ email: email("owner"), businessName: "Roles Co" });
  const me = await call(owner, "GET", "/business/me");
  const mail = email(role.toLowerCase());
  const invited = await addMember(me.body.business.businessId, { email: mail, role }, env.appUrl);
  const token = new URL(invited.inviteUrl!).searchParams.get("invite")!;
  const member = await signUp({ email: mail, inviteToken: token });
  return { owner, member, mail, businessId: me.body.business.businessId as string, memberId: invited.memberId };
}

describe("joining a business", () => {
  it("an invited email signing up without the invitation's token gets a business of its own", async () => {
    const owner = await signUp({ email: email("owner"), businessName: "Inviting Co" });
    const businessId = (await call(owner, "GET", "/business/me")).body.business.businessId;
    const mail = email("invitee");
    const invited = await addMember(businessId, { email: mail, role: "MEMBER" }, env.appUrl);
    const stranger = await signUp({ email: mail, businessName: "Own Shop" });
    const me = await call(stranger, "GET", "/business/me");
    expect(me.body).toMatchObject({ role: "OWNER", business: { name: "Own Shop" } });
    expect(me.body.business.businessId).not.toBe(businessId);
    // The invitation was not used up by the email alone.
    expect(await db.member.findUnique({ where: { id: invited.memberId } })).toMatchObject({ status: "INVITED", userId: null });
  });

  it("an account with no business (a removed member) is invited again, not attached: it joins by signing in and accepting the link", async () => {
    const { owner, member, mail, businessId, memberId } = await team("MEMBER");
    expect((await call(owner, "DELETE", `/business/members/${memberId}`)).status).toBe(200);
    const again = await call(owner, "POST", "/business/members", { email: mail, role: "ADMIN" });
    expect(again.body).toMatchObject({ status: "INVITED", userId: null, inviteUrl: expect.stringContaining("invite=") });
    expect((await call(member, "GET", "/business/me")).status).toBe(403);
    const token = new URL(again.body.inviteUrl).searchParams.get("invite")!;
    const as = (bearer: string) => appRouter.createCaller(createContext(new Request("http://127.0.0.1/api/trpc/members.accept", { method: "POST", headers: { authorization: `Bearer ${bearer}` } })));
    // The owner (an account with a business) cannot take it; the invited account can, once.
    await expect(as(owner).members.accept({ token })).rejects.toMatchObject({ code: "UNPROCESSABLE_CONTENT" });
    expect(await as(member).members.accept({ token })).toEqual({ businessId, role: "ADMIN" });
    expect((await call(member, "GET", "/business/me")).body).toMatchObject({ role: "ADMIN", business: { businessId } });
    await expect(as(member).members.accept({ token })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("with the token, the invited person joins as the role the owner chose", async () => {
    const { member, businessId } = await team("ADMIN");
    expect((await call(member, "GET", "/business/me")).body).toMatchObject({ role: "ADMIN", business: { businessId } });
  });
});

describe("a member reads and reviews; money is for the owner and admins", () => {
  it("a MEMBER gets 403 NOT_OWNER on every write that changes what the pool pays, and changes nothing", async () => {
    const { owner, member } = await team("MEMBER");
    const tier = await call(owner, "POST", "/business/config/tiers", { name: "Gold", minReferrals: 5, referralRewardEth: "0.02" });
    expect(tier.status).toBe(200);
    const writes: Array<[string, string, unknown]> = [
      ["PATCH", "/business/config/general", { referralRewardEth: "0.4" }],
      ["PATCH", "/business/config/general", { bonusEth: "0.4", environment: "TEST" }],
      ["PATCH", "/business/config/general", { rewardStrategy: "TIERED" }],
      ["PATCH", "/business/config/general", { qualifyingEvents: [] }],
      ["PATCH", "/business/config/general", { reversalEvents: ["refund"] }],
      // Who a click credits, and where every referral link leads.
      ["PATCH", "/business/config/general", { attribution: "FIRST_CLICK", environment: "TEST" }],
      ["PATCH", "/business/config/general", { linkDestinationUrl: "https://elsewhere.example/", environment: "TEST" }],
      ["PATCH", "/business/config/general", { linkParam: "x", environment: "TEST" }],
      ["POST", "/business/config/tiers", { name: "Platinum", minReferrals: 1, referralRewardEth: "0.4" }],
      ["PATCH", `/business/config/tiers/${tier.body.tierId}`, { referralRewardEth: "0.4" }],
      ["DELETE", `/business/config/tiers/${tier.body.tierId}`, undefined],
      ["POST", "/business/events", { eventName: "purchase", environment: "TEST", referrer: "NOPE", metadata: { referredUserEmail: email("r") } }],
      ["PATCH", "/business/referrals/settings", { maxReferralsPerReferrerPerDay: null }],
      ["PATCH", "/business/config/spend", { maxEthPerDayPerUser: null }],
      ["POST", "/business/rewards", { recipient: "x", amountEth: "0.4", reason: "r", environment: "TEST" }],
    ];
    for (const [method, path, body] of writes) {
      const r = await call(member, method, path, body);
      expect({ method, path, status: r.status, code: r.body.error?.code }).toEqual({ method, path, status: 403, code: "NOT_OWNER" });
    }
    const config = await call(owner, "GET", "/business/config");
    expect(config.body.general).toMatchObject({ referralRewardEth: "0", rewardStrategy: "FIXED", reversalEvents: [] });
    expect((await call(owner, "GET", "/business/config/tiers")).body.data).toHaveLength(1);

    // Reads and what changes no money stay open; reviewing an event is not refused for the role.
    expect((await call(member, "GET", "/business/config")).status).toBe(200);
    expect((await call(member, "GET", "/business/referrals/settings")).status).toBe(200);
    expect((await call(member, "PATCH", "/business/config/general", { businessName: "Renamed" })).status).toBe(200);
    expect((await call(member, "PATCH", "/business/events/evt_missing/status", { status: "PROCESSED" })).body.error.code).toBe("NOT_FOUND");
  });

  it("the owner makes a member an ADMIN, who may then change amounts, tiers and rules, but not roles or keys", async () => {
    const { owner, member, memberId } = await team("MEMBER");
    expect((await call(member, "PATCH", `/business/members/${memberId}`, { role: "ADMIN" })).body.error.code).toBe("NOT_OWNER");
    const promoted = await call(owner, "PATCH", `/business/members/${memberId}`, { role: "ADMIN" });
    expect(promoted).toMatchObject({ status: 200, body: { memberId, role: "ADMIN" } });
    expect((await call(member, "PATCH", "/business/config/general", { referralRewardEth: "0.02" })).status).toBe(200);
    expect((await call(member, "POST", "/business/config/tiers", { name: "Gold", minReferrals: 3, referralRewardEth: "0.03" })).status).toBe(200);
    expect((await call(member, "PATCH", "/business/referrals/settings", { maxReferralsPerReferrerPerDay: 5 })).status).toBe(200);
    // Owner-only stays owner-only.
    expect((await call(member, "POST", "/business/api-keys", { environment: "TEST", name: "k" })).body.error.code).toBe("NOT_OWNER");
    expect((await call(member, "PATCH", `/business/members/${memberId}`, { role: "MEMBER" })).body.error.code).toBe("NOT_OWNER");
    // And back to MEMBER: the write is refused again.
    expect((await call(owner, "PATCH", `/business/members/${memberId}`, { role: "MEMBER" })).body.role).toBe("MEMBER");
    expect((await call(member, "PATCH", "/business/config/general", { referralRewardEth: "0.4" })).body.error.code).toBe("NOT_OWNER");
  });

  it("the owner's own role is not changed by PATCH (422), roles outside ADMIN/MEMBER are 400", async () => {
    const { owner } = await team("MEMBER");
    const members = (await call(owner, "GET", "/business/members")).body.data as Array<{ memberId: string; role: string }>;
    const self = members.find((m) => m.role === "OWNER")!;
    expect((await call(owner, "PATCH", `/business/members/${self.memberId}`, { role: "ADMIN" })).body.error.code).toBe("UNPROCESSABLE");
    const other = members.find((m) => m.role === "MEMBER")!;
    expect((await call(owner, "PATCH", `/business/members/${other.memberId}`, { role: "OWNER" })).status).toBe(400);
    expect((await call(owner, "PATCH", `/business/members/${other.memberId}`, { role: "admin" })).status).toBe(400);
  });
});

describe("transferring ownership asks for the owner's password", () => {
  it("without it or with a wrong one: 403 REAUTHENTICATION_REQUIRED and nothing changes; with it the member owns the business", async () => {
    const { owner, member, businessId, memberId } = await team("ADMIN");
    const path = `/business/members/${memberId}/transfer-ownership`;
    const ownerId = (await db.business.findUniqueOrThrow({ where: { id: businessId } })).ownerId;
    for (const body of [{}, { password: "wrong-horse-battery" }, { password: "" }]) {
      const res = await call(owner, "POST", path, body);
      expect(res).toMatchObject({ status: 403, body: { error: { code: "REAUTHENTICATION_REQUIRED" } } });
    }
    expect((await db.business.findUniqueOrThrow({ where: { id: businessId } })).ownerId).toBe(ownerId);
    expect((await call(owner, "GET", "/business/me")).body).toMatchObject({ role: "OWNER" });
    // A member cannot take it with their own password either.
    expect((await call(member, "POST", path, { password: "correct-horse-battery" })).status).toBe(403);
    const done = await call(owner, "POST", path, { password: "correct-horse-battery" });
    expect(done.status).toBe(200);
    expect((await call(member, "GET", "/business/me")).body).toMatchObject({ role: "OWNER" });
    expect((await call(owner, "GET", "/business/me")).body).toMatchObject({ role: "MEMBER" });
  });
});
