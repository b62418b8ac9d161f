// Who is calling, as the dashboard needs it: the signed-in user, their business and their
// role in it, so the UI can hide owner-only actions from members (the server still enforces them).
import { db } from "../../db/client";
import { AppError } from "../../shared/errors";
import type { MemberRole } from "./schemas";
import type { Membership } from "./service";

export interface CurrentMember {
  user: { id: string; email: string; name: string | null };
  business: { businessId: string; name: string };
  role: MemberRole;
}

export async function getCurrentMember(user: { id: string; email: string; name?: string }, membership: Membership): Promise<CurrentMember> {
  const business = await db.business.findUnique({ where: { id: membership.businessId }, select: { id: true, name: true } });
  if (!business) throw new AppError("NOT_FOUND", "Business not found");
  return {
    user: { id: user.id, email: user.email, name: user.name ?? null },
    business: { businessId: business.id, name: business.name },
    role: membership.role,
  };
}
