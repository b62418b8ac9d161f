import { z } from "zod";

export const addMemberInput = z.strictObject({
  email: z.email().max(254).transform((e) => e.toLowerCase()),
  role: z.enum(["MEMBER"]).default("MEMBER"),
});

export const memberOutput = z.object({
  memberId: z.string(),
  userId: z.string().nullable(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(["OWNER", "MEMBER"]),
  status: z.enum(["INVITED", "ACTIVE"]),
  /** When the invitation link stops working (INVITED only). */
  inviteExpiresAt: z.string().nullable(),
  /** The one-time invitation link, returned only when it is created (invite, renew); never listed. */
  inviteUrl: z.string().nullable(),
  createdAt: z.string(),
});
export type MemberOutput = z.infer<typeof memberOutput>;

export const memberIdInput = z.strictObject({ memberId: z.string().min(1).max(64) });

export const invitationTokenInput = z.strictObject({ token: z.string().min(10).max(200) });
export const invitationOutput = z.object({ email: z.string(), businessName: z.string(), expiresAt: z.string() });
export type InvitationOutput = z.infer<typeof invitationOutput>;
