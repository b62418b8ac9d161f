// Members: invitation links (one-time, expiring, renewable), sign-up through them, removal,
// cancelled invitations and the transfer of ownership.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { acceptInvitation, addMember, findMembership, getInvitation, listMembers, onUserSignedUp, removeMember, renewInviteLink, transferOwnership } from "./service";

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
  it("an email with an account but no business is invited, not attached: it joins only by accepting the link signed in as that account", async () => {
    const { businessId } = await ownerBusiness();
    // An account anyone could have created with this email (accounts are not verified by mail).
    const squatter = await user(`alice-${hex()}@corp.example`);
    const added = await addMember(businessId, { email: squatter.email, role: "ADMIN" }, APP);
    expect(added).toMatchObject({ status: "INVITED", userId: null, inviteUrl: expect.stringContaining("/sign-up?invite=") });
    expect(await findMembership(squatter.id)).toBeNull();

    // Another account cannot use the link; a wrong token is a 404.
    const other = await user(`other-${hex()}@example.com`);
    await expect(acceptInvitation(other, tokenOf(added.inviteUrl))).rejects.toMatchObject({ code: "UNPROCESSABLE" });
    await expect(acceptInvitation(squatter, "x".repeat(43))).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await findMembership(other.id)).toBeNull();

    // The account with the link joins, once.
    expect(await acceptInvitation(squatter, tokenOf(added.inviteUrl))).toEqual({ businessId, role: "ADMIN" });
    expect(await findMembership(squatter.id)).toMatchObject({ businessId, role: "ADMIN" });
    await expect(acceptInvitation(squatter, tokenOf(added.inviteUrl))).rejects.toMatchObject({ code: "NOT_FOUND" });

    // An account that belongs to a business already cannot join a second one.
    const late = await addMember(businessId, { email: `late-${hex()}@example.com`, role: "MEMBER" }, APP);
    const lateUser = await user(late.email);
    const second = await ownerBusiness();
    await db.member.create({ data: { businessId: second.businessId, userId: lateUser.id, email: lateUser.email, role: "MEMBER" } });
    await expect(acceptInvitation(lateUser, tokenOf(late.inviteUrl))).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await findMembership(lateUser.id)).toMatchObject({ businessId: second.businessId });
  });

  it("the database keeps one owner per business", async () => {
    const { businessId } = await ownerBusiness();
    const ann = await user(`ann-${hex()}@example.com`);
    const row = await addMember(businessId, { email: ann.email, role: "MEMBER" }, APP);
    await acceptInvitation(ann, tokenOf(row.inviteUrl));
    await expect(db.member.update({ where: { id: row.memberId }, data: { role: "OWNER" } })).rejects.toThrow(/Member_one_owner_key|Unique constraint/);
  });

  it("two transfers of ownership at once leave one owner; a member removed while ownership moves to them is not removed as the owner", async () => {
    const { businessId, owner } = await ownerBusiness();
    const people = await Promise.all([user(`x-${hex()}@example.com`), user(`y-${hex()}@example.com`)]);
    const rows = [];
    for (const p of people) {
      const r = await addMember(businessId, { email: p.email, role: "MEMBER" }, APP);
      await acceptInvitation(p, tokenOf(r.inviteUrl));
      rows.push(r);
    }
    const results = await Promise.allSettled(rows.map((r) => transferOwnership(businessId, owner.id, r.memberId)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const owners = (await listMembers(businessId)).filter((m) => m.role === "OWNER");
    expect(owners).toHaveLength(1);
    const business = await db.business.findUniqueOrThrow({ where: { id: businessId } });
    expect(owners[0].userId).toBe(business.ownerId);

    // The new owner's row cannot be removed, whatever the caller read before.
    await expect(removeMember(businessId, owners[0].memberId)).rejects.toMatchObject({ code: "UNPROCESSABLE" });
    expect((await listMembers(businessId)).filter((m) => m.role === "OWNER")).toHaveLength(1);
  });

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
    await acceptInvitation(bob, tokenOf(added.inviteUrl));
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
    await acceptInvitation(ann, tokenOf(annRow.inviteUrl));
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
