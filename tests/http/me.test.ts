// GET /business/me: who the dashboard is talking to (user, business, role).
import { describe, expect, it } from "vitest";
import { baseUrl, request, signUp, uniqueEmail } from "../support/http";

describe("GET /business/me", () => {
  it("needs a session", async () => {
    const r = await request(baseUrl(), "GET", "/business/me");
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("UNAUTHENTICATED");
  });

  it("tells the owner and an invited member apart, within the same business", async () => {
    const owner = await signUp({ businessName: "Me & Co" });
    const me = await owner.call("GET", "/business/me");
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      user: { id: owner.userId, email: owner.email, name: "Test Owner" },
      business: { businessId: expect.any(String), name: "Me & Co" },
      role: "OWNER",
    });

    const memberEmail = uniqueEmail("member");
    const invited = await owner.call("POST", "/business/members", { email: memberEmail });
    expect(invited.status).toBe(200);
    const member = await signUp({ email: memberEmail, inviteUrl: invited.body.inviteUrl });
    const mine = await member.call("GET", "/business/me");
    expect(mine.status).toBe(200);
    expect(mine.body.role).toBe("MEMBER");
    expect(mine.body.business).toEqual(me.body.business);
    expect(mine.body.user.email).toBe(memberEmail);
  });
});
