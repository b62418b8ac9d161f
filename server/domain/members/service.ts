// Businesses and the people who run them. Sign-up creates a business owned by the new user,
// unless an owner invited that email first, in which case the user joins that business.
import { db } from "../../db/client";
import { AppError } from "../../shared/errors";
import type { MemberOutput } from "./schemas";

export interface Membership {
  memberId: string;
  businessId: string;
  role: "OWNER" | "MEMBER";
}

export async function pendingInvitationFor(email: string): Promise<boolean> {
  const m = await db.member.findFirst({ where: { email: email.toLowerCase(), status: "INVITED", userId: null } });
  return !!m;
}

export async function onUserSignedUp(user: { id: string; email: string }, businessName: string): Promise<void> {
  const email = user.email.toLowerCase();
  await db.$transaction(async (tx) => {
    const invite = await tx.member.findFirst({ where: { email, status: "INVITED", userId: null }, orderBy: { createdAt: "asc" } });
    if (invite) {
      await tx.member.update({ where: { id: invite.id }, data: { userId: user.id, status: "ACTIVE" } });
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
  const m = await db.member.findUnique({ where: { userId } });
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
  createdAt: m.createdAt.toISOString(),
});

export async function listMembers(businessId: string): Promise<MemberOutput[]> {
  const rows = await db.member.findMany({ where: { businessId }, include: { user: { select: { name: true } } }, orderBy: { createdAt: "asc" } });
  return rows.map(toOutput);
}

/** Adds a member by email: attached at once if that person already has an account with no business, else invited. */
export async function addMember(businessId: string, input: { email: string; role: "MEMBER" }): Promise<MemberOutput> {
  const email = input.email.toLowerCase();
  const existing = await db.member.findUnique({ where: { businessId_email: { businessId, email } } });
  if (existing) throw new AppError("CONFLICT", "This email is already a member of the business");
  const user = await db.user.findUnique({ where: { email }, include: { membership: true } });
  if (user?.membership) throw new AppError("CONFLICT", "This person already belongs to another business");
  try {
    const m = await db.member.create({
      data: { businessId, email, role: input.role, userId: user?.id ?? null, status: user ? "ACTIVE" : "INVITED" },
      include: { user: { select: { name: true } } },
    });
    return toOutput(m);
  } catch (e) {
    if ((e as { code?: string }).code === "P2002") throw new AppError("CONFLICT", "This email is already a member of the business");
    throw e;
  }
}
