// Businesses and the people who run them. Sign-up creates a business owned by the new user,
// unless it comes with the token of an invitation for that email (the link the owner sent), in
// which case the user joins that business: an invited email alone never joins.
// Invitations carry a one-time link (only the SHA-256 of its token is stored) that expires after
// INVITE_TTL_DAYS; the owner can remove members, cancel invitations and hand over ownership.
import { lockBusiness } from "../../db/business-lock";
import { createHash, randomBytes } from "node:crypto";
import { db } from "../../db/client";
import { AppError, notFound } from "../../shared/errors";
import type { InvitationOutput, MemberOutput, MemberRole } from "./schemas";

const INVITE_TTL_DAYS = 7;
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

function newInvite(now = new Date()) {
  const token = randomBytes(32).toString("base64url");
  return { token, inviteTokenHash: hashToken(token), inviteExpiresAt: new Date(now.getTime() + INVITE_TTL_DAYS * 86_400_000) };
}

export interface Membership {
  memberId: string;
  businessId: string;
  role: MemberRole;
}

/** Who may change what the pool pays (reward amounts, tiers, referral rules, recorded events): 403 NOT_OWNER for a member. */
export function assertCanChangeMoney(role: MemberRole): void {
  if (role !== "OWNER" && role !== "ADMIN") throw new AppError("NOT_OWNER", "Only the owner or an admin can change what the pool pays");
}

/** The unexpired, unused invitation of this token, for this email (the one the owner typed). */
const pendingWhere = (email: string, token: string) => ({
  email: email.toLowerCase(),
  inviteTokenHash: hashToken(token),
  status: "INVITED" as const,
  userId: null,
  inviteExpiresAt: { gt: new Date() },
});

/** The invitation a link stands for, or 404 when it is unknown, used, cancelled or expired. */
export async function getInvitation(token: string): Promise<InvitationOutput> {
  const m = await db.member.findUnique({ where: { inviteTokenHash: hashToken(token) }, include: { business: { select: { name: true } } } });
  if (!m || m.status !== "INVITED" || !m.inviteExpiresAt || m.inviteExpiresAt <= new Date()) {
    throw new AppError("NOT_FOUND", "This invitation link is not valid: it was used, cancelled or has expired. Ask the owner for a new one.");
  }
  return { email: m.email, businessName: m.business.name, expiresAt: m.inviteExpiresAt.toISOString() };
}

/** A new user: joins the business of `inviteToken` (when valid for their email), else owns a new one. */
export async function onUserSignedUp(user: { id: string; email: string }, businessName: string, inviteToken: string | null = null): Promise<void> {
  const email = user.email.toLowerCase();
  await db.$transaction(async (tx) => {
    const invite = inviteToken ? await tx.member.findFirst({ where: pendingWhere(email, inviteToken) }) : null;
    if (invite) {
      // Joining uses the invitation up: its link stops working.
      await tx.member.update({ where: { id: invite.id }, data: { userId: user.id, status: "ACTIVE", inviteTokenHash: null, inviteExpiresAt: null } });
      return;
    }
    const business = await tx.business.create({
      data: {
        name: businessName || "My business",
        ownerId: user.id,
        config: { create: {} },
        referralSettings: { create: {} },
        pools: { create: [{ environment: "TEST" }, { environment: "LIVE" }] },
      },
    });
    await tx.member.create({ data: { businessId: business.id, userId: user.id, email, role: "OWNER", status: "ACTIVE" } });
  });
}

export async function findMembership(userId: string): Promise<Membership | null> {
  return activeMembership(await db.member.findUnique({ where: { userId } }));
}

/** A member row as the caller's membership: only an ACTIVE member belongs to the business. */
export function activeMembership(m: { id: string; businessId: string; role: Membership["role"]; status: string } | null): Membership | null {
  if (!m || m.status !== "ACTIVE") return null;
  return { memberId: m.id, businessId: m.businessId, role: m.role };
}

type MemberRow = Awaited<ReturnType<typeof db.member.findFirstOrThrow>> & { user: { name: string } | null };
const toOutput = (m: MemberRow): MemberOutput => ({
  memberId: m.id,
  userId: m.userId,
  email: m.email,
  name: m.user?.name ?? null,
  role: m.role,
  status: m.status,
  inviteExpiresAt: m.inviteExpiresAt ? m.inviteExpiresAt.toISOString() : null,
  inviteUrl: null,
  createdAt: m.createdAt.toISOString(),
});

const inviteUrl = (appUrl: string, token: string) => `${appUrl.replace(/\/$/, "")}/sign-up?invite=${encodeURIComponent(token)}`;

export async function listMembers(businessId: string): Promise<MemberOutput[]> {
  const rows = await db.member.findMany({ where: { businessId }, include: { user: { select: { name: true } } }, orderBy: { createdAt: "asc" } });
  return rows.map(toOutput);
}

/**
 * Invites a member by email: an invitation (INVITED) with its one-time link, whether or not that
 * email has an account. Knowing an email proves nothing (accounts are not verified by mail), so
 * nobody joins a business without the link: a new person signs up through it, someone with an
 * account signs in through it (acceptInvitation).
 */
export async function addMember(businessId: string, input: { email: string; role: "ADMIN" | "MEMBER" }, appUrl: string): Promise<MemberOutput> {
  const email = input.email.toLowerCase();
  const existing = await db.member.findUnique({ where: { businessId_email: { businessId, email } } });
  if (existing) throw new AppError("CONFLICT", "This email is already a member of the business");
  const user = await db.user.findUnique({ where: { email }, include: { membership: true } });
  if (user?.membership) throw new AppError("CONFLICT", "This person already belongs to another business");
  try {
    const invite = newInvite();
    const m = await db.member.create({
      data: { businessId, email, role: input.role, userId: null, status: "INVITED", inviteTokenHash: invite.inviteTokenHash, inviteExpiresAt: invite.inviteExpiresAt },
      include: { user: { select: { name: true } } },
    });
    return { ...toOutput(m), inviteUrl: inviteUrl(appUrl, invite.token) };
  } catch (e) {
    if ((e as { code?: string }).code === "P2002") throw new AppError("CONFLICT", "This email is already a member of the business");
    throw e;
  }
}

/**
 * A signed-in user with no business joins through an invitation for their email: the link's
 * token and the account's password together (the sign-in page of an invitation link).
 */
export async function acceptInvitation(user: { id: string; email: string }, token: string): Promise<{ businessId: string; role: MemberRole }> {
  return db.$transaction(async (tx) => {
    const invite = await tx.member.findFirst({ where: pendingWhere(user.email, token) });
    if (!invite) {
      const any = await tx.member.findUnique({ where: { inviteTokenHash: hashToken(token) }, select: { email: true, status: true, inviteExpiresAt: true } });
      if (any && any.status === "INVITED" && any.inviteExpiresAt && any.inviteExpiresAt > new Date() && any.email !== user.email.toLowerCase()) {
        throw new AppError("UNPROCESSABLE", `This invitation is for ${any.email}: sign in with that account.`);
      }
      throw new AppError("NOT_FOUND", "This invitation link is not valid: it was used, cancelled or has expired. Ask the owner for a new one.");
    }
    // One business per account: the unique userId of Member refuses a second one, even concurrently.
    if (await tx.member.findUnique({ where: { userId: user.id }, select: { id: true } })) throw new AppError("CONFLICT", "This account already belongs to a business");
    try {
      await tx.member.update({ where: { id: invite.id }, data: { userId: user.id, status: "ACTIVE", inviteTokenHash: null, inviteExpiresAt: null } });
    } catch (e) {
      if ((e as { code?: string }).code === "P2002") throw new AppError("CONFLICT", "This account already belongs to a business");
      throw e;
    }
    return { businessId: invite.businessId, role: invite.role };
  });
}

async function ownedMember(businessId: string, memberId: string) {
  const m = await db.member.findFirst({ where: { id: memberId, businessId } });
  if (!m) throw notFound("Member");
  return m;
}

/** A new invite link for a pending invitation (the previous link stops working), valid INVITE_TTL_DAYS. */
export async function renewInviteLink(businessId: string, memberId: string, appUrl: string): Promise<MemberOutput> {
  const m = await ownedMember(businessId, memberId);
  if (m.status !== "INVITED") throw new AppError("UNPROCESSABLE", "This person has already joined: there is no invitation to renew");
  const invite = newInvite();
  const updated = await db.member.update({
    where: { id: m.id },
    data: { inviteTokenHash: invite.inviteTokenHash, inviteExpiresAt: invite.inviteExpiresAt },
    include: { user: { select: { name: true } } },
  });
  return { ...toOutput(updated), inviteUrl: inviteUrl(appUrl, invite.token) };
}

/** The owner makes a member (joined or invited) an ADMIN or a MEMBER; the owner's own role moves only by a transfer. */
export async function changeMemberRole(businessId: string, memberId: string, role: "ADMIN" | "MEMBER"): Promise<MemberOutput> {
  const m = await ownedMember(businessId, memberId);
  // The role guard is in the write, so a concurrent transfer of ownership cannot be overwritten.
  const { count } = await db.member.updateMany({ where: { id: m.id, businessId, role: { not: "OWNER" } }, data: { role } });
  if (count === 0) throw new AppError("UNPROCESSABLE", "The owner's role changes only by transferring ownership to another member");
  return toOutput(await db.member.findUniqueOrThrow({ where: { id: m.id }, include: { user: { select: { name: true } } } }));
}

/** Removes a member or cancels an invitation. The owner cannot be removed (transfer ownership first). */
export async function removeMember(businessId: string, memberId: string): Promise<MemberOutput> {
  const m = await ownedMember(businessId, memberId);
  const ownerOnly = () => new AppError("UNPROCESSABLE", "The owner cannot be removed: transfer ownership to another member first");
  if (m.role === "OWNER") throw ownerOnly();
  // The role guard is in the delete: a transfer of ownership to this member meanwhile keeps them.
  const user = m.userId ? await db.user.findUnique({ where: { id: m.userId }, select: { name: true } }) : null;
  const { count } = await db.member.deleteMany({ where: { id: m.id, businessId, role: { not: "OWNER" } } });
  if (count === 0) throw ownerOnly();
  return toOutput({ ...m, user });
}

/** The owner hands the business to an active member and becomes a member. */
export async function transferOwnership(businessId: string, fromUserId: string, memberId: string): Promise<MemberOutput[]> {
  await db.$transaction(async (tx) => {
    // One transfer of a business at a time: two at once would each demote the same owner.
    await lockBusiness(tx, businessId);
    const target = await tx.member.findFirst({ where: { id: memberId, businessId } });
    if (!target) throw notFound("Member");
    if (target.status !== "ACTIVE" || !target.userId) throw new AppError("UNPROCESSABLE", "Ownership can only go to a member who has joined");
    if (target.role === "OWNER") throw new AppError("UNPROCESSABLE", "This member already owns the business");
    const current = await tx.member.findFirst({ where: { businessId, userId: fromUserId, role: "OWNER" } });
    if (!current) throw new AppError("NOT_OWNER", "Only the owner of the business can do this");
    await tx.member.update({ where: { id: current.id }, data: { role: "MEMBER" } });
    // Removed meanwhile (the delete does not wait for the business lock): nothing changes.
    const promoted = await tx.member.updateMany({ where: { id: target.id, businessId, status: "ACTIVE" }, data: { role: "OWNER" } });
    if (promoted.count !== 1) throw notFound("Member");
    await tx.business.update({ where: { id: businessId }, data: { ownerId: target.userId } });
  });
  return listMembers(businessId);
}
