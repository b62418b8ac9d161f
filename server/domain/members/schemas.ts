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
  createdAt: z.string(),
});
export type MemberOutput = z.infer<typeof memberOutput>;
