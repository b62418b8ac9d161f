// A staff member of a business and a tRPC caller acting as them (in process, no HTTP).
import { randomUUID } from "node:crypto";
import { db } from "../../server/db/client";
import { appRouter } from "../../server/routers/_app";
import { CLIENT_IP_HEADER } from "../../server/shared/client-ip";

export async function staff(businessId: string, role: "OWNER" | "MEMBER") {
  const email = `${role.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`;
  const user = await db.user.create({ data: { id: randomUUID(), name: role, email, role: "BUSINESS" } });
  const member = await db.member.create({ data: { businessId, userId: user.id, email, role } });
  const caller = appRouter.createCaller({
    headers: new Headers({ [CLIENT_IP_HEADER]: "203.0.113.7" }),
    session: async () => ({ id: user.id, email, role: "BUSINESS", membership: { memberId: member.id, businessId, role } }),
  });
  return { user, caller };
}
