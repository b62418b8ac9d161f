import { z } from "zod";

/** OWNER: everything. ADMIN: also what changes what the pool pays. MEMBER: reads and reviews. */
export const memberRole = z.enum(["OWNER", "ADMIN", "MEMBER"]);
export type MemberRole = z.infer<typeof memberRole>;
/** The roles the owner can give (ownership moves only through a transfer). */
const grantableRole = z.enum(["ADMIN", "MEMBER"]);

export const addMemberInput = z.strictObject({
  email: z.email().max(254).transform((e) => e.toLowerCase()),
  role: grantableRole.default("MEMBER"),
});

/** PATCH /business/members/{memberId}: the owner makes a member an admin or back. */
export const changeMemberRoleInput = z.strictObject({ memberId: z.string().min(1).max(64), role: grantableRole });

export const memberOutput = z.object({
  memberId: z.string(),
  userId: z.string().nullable(),
  email: z.string(),
  name: z.string().nullable(),
  role: memberRole,
  status: z.enum(["INVITED", "ACTIVE"]),
  /** When the invitation link stops working (INVITED only). */
  inviteExpiresAt: z.string().nullable(),
  /** The one-time invitation link, returned only when it is created (invite, renew); never listed. */
  inviteUrl: z.string().nullable(),
  createdAt: z.string(),
});
export type MemberOutput = z.infer<typeof memberOutput>;

export const memberIdInput = z.strictObject({ memberId: z.string().min(1).max(64) });
/** A transfer of ownership: the owner confirms with their password (checked before anything changes). */
export const transferOwnershipInput = z.strictObject({ memberId: z.string().min(1).max(64), password: z.string().max(128).optional() });

export const invitationTokenInput = z.strictObject({ token: z.string().min(10).max(200) });
export const invitationOutput = z.object({ email: z.string(), businessName: z.string(), expiresAt: z.string() });
export type InvitationOutput = z.infer<typeof invitationOutput>;
