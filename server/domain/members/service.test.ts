// Members: invitation links (one-time, expiring, renewable), sign-up through them, removal,
// cancelled invitations and the transfer of ownership.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { addMember, findMembership, getInvitation, listMembers, onUserSignedUp, removeMember, renewInviteLink, transferOwnership } from "./service";

const hex = () => randomBytes(5).toString("hex");
const APP = "https://app.example.com";

async function user(email: string) {
  return db.user.create({ data: { id: `u-${hex()}`, name: email.split("@")[0], email } });
}

async function ownerBusiness() {
  const owner = await user(`owner-${hex()}@example.com`);
  await onUserSignedUp(owner, "Team Co");
  const m = (await findMembership(owner.id))!;
  return { owner, businessId: m.businessId };
}

const tokenOf = (url: string | null) => new URL(url!).searchParams.get("invite")!;

describe("members", () => {
  it("an invitation link names the business, works once, and a new link replaces the old", async () => {
    const { businessId } = await ownerBusiness();
    const email = `mia-${hex()}@example.com`;
    const invited = await addMember(businessId, { email, role: "MEMBER" }, APP);
    expect(invited).toMatchObject({ status: "INVITED", inviteUrl: expect.stringMatching(/^https:\/\/app\.example\.com\/sign-up\?invite=/) });
    const first = tokenOf(invited.inviteUrl);
    await expect(getInvitation(first)).resolves.toMatchObject({ email, businessName: "Team Co" });
    // Lists never carry the link; only the hash is stored.
    expect((await listMembers(businessId)).find((m) => m.email === email)?.inviteUrl).toBeNull();
    expect(await db.member.count({ where: { inviteTokenHash: first } })).toBe(0);

    const renewed = await renewInviteLink(businessId, invited.memberId, APP);
    const second = tokenOf(renewed.inviteUrl);
    await expect(getInvitation(first)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(getInvitation(second)).resolves.toMatchObject({ email });

    const mia = await user(email);
    await onUserSignedUp(mia, "", second);
    expect(await findMembership(mia.id)).toMatchObject({ businessId, role: "MEMBER" });
    await expect(getInvitation(second)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("an invited email joins only with its invitation's token, not by the email alone nor with another invitation's token", async () => {
    const { businessId } = await ownerBusiness();
    const email = `eve-${hex()}@example.com`;
    const invited = await addMember(businessId, { email, role: "ADMIN" }, APP);
    const other = await addMember(businessId, { email: `other-${hex()}@example.com`, role: "MEMBER" }, APP);
    const eve = await user(email);
    await onUserSignedUp(eve, "Eve Shop");
    expect((await findMembership(eve.id))?.businessId).not.toBe(businessId);
    const eve2 = await user(`eve2-${hex()}@example.com`);
    await onUserSignedUp(eve2, "Eve Two", tokenOf(invited.inviteUrl));
    expect((await findMembership(eve2.id))?.businessId).not.toBe(businessId);
    const again = await user(`x-${hex()}@example.com`);
    await onUserSignedUp(again, "X", tokenOf(other.inviteUrl));
    expect((await findMembership(again.id))?.role).toBe("OWNER");
    // The invitation still waits for its person.
    await expect(getInvitation(tokenOf(invited.inviteUrl))).resolves.toMatchObject({ email });
  });

  it("an expired invitation neither opens nor lets its email join", async () => {
    const { businessId } = await ownerBusiness();
    const email = `late-${hex()}@example.com`;
    const invited = await addMember(businessId, { email, role: "MEMBER" }, APP);
    await db.member.update({ where: { id: invited.memberId }, data: { inviteExpiresAt: new Date(Date.now() - 1000) } });
    await expect(getInvitation(tokenOf(invited.inviteUrl))).rejects.toMatchObject({ code: "NOT_FOUND" });
    const late = await user(email);
    await onUserSignedUp(late, "Own Shop", tokenOf(invited.inviteUrl));
    const m = await findMembership(late.id);
    expect(m?.businessId).not.toBe(businessId);
    expect(m?.role).toBe("OWNER");
  });

  it("the database refuses an invitation token on a member who joined", async () => {
    const { businessId, owner } = await ownerBusiness();
    const ownerRow = await db.member.findFirstOrThrow({ where: { businessId, userId: owner.id } });
    await expect(db.member.update({ where: { id: ownerRow.id }, data: { inviteTokenHash: hex(), inviteExpiresAt: new Date(Date.now() + 1000) } })).rejects.toThrow();
  });

  it("cancel an invitation, remove a member, never the owner; another business's member is a 404", async () => {
    const { businessId, owner } = await ownerBusiness();
    const invited = await addMember(businessId, { email: `c-${hex()}@example.com`, role: "MEMBER" }, APP);
    await removeMember(businessId, invited.memberId);
    await expect(getInvitation(tokenOf(invited.inviteUrl))).rejects.toMatchObject({ code: "NOT_FOUND" });

    const bob = await user(`bob-${hex()}@example.com`);
    const added = await addMember(businessId, { email: bob.email, role: "MEMBER" }, APP);
    expect(added).toMatchObject({ status: "ACTIVE", inviteUrl: null });
    expect(await findMembership(bob.id)).not.toBeNull();
    await removeMember(businessId, added.memberId);
    expect(await findMembership(bob.id)).toBeNull();

    const ownerRow = (await listMembers(businessId)).find((m) => m.userId === owner.id)!;
    await expect(removeMember(businessId, ownerRow.memberId)).rejects.toMatchObject({ code: "UNPROCESSABLE" });
    const other = await ownerBusiness();
    await expect(removeMember(other.businessId, ownerRow.memberId)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("the owner transfers ownership to an active member and becomes a member", async () => {
    const { businessId, owner } = await ownerBusiness();
    const ann = await user(`ann-${hex()}@example.com`);
    const annRow = await addMember(businessId, { email: ann.email, role: "MEMBER" }, APP);
    const pending = await addMember(businessId, { email: `p-${hex()}@example.com`, role: "MEMBER" }, APP);
    await expect(transferOwnership(businessId, owner.id, pending.memberId)).rejects.toMatchObject({ code: "UNPROCESSABLE" });
    await transferOwnership(businessId, owner.id, annRow.memberId);
    expect(await findMembership(ann.id)).toMatchObject({ role: "OWNER" });
    expect(await findMembership(owner.id)).toMatchObject({ role: "MEMBER" });
    expect((await db.business.findUniqueOrThrow({ where: { id: businessId } })).ownerId).toBe(ann.id);
    // The former owner can no longer hand it over.
    await expect(transferOwnership(businessId, owner.id, annRow.memberId)).rejects.toMatchObject({ code: "UNPROCESSABLE" });
  });
});
