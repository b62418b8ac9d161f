import { z } from "zod";
import { listAuditLogInput, listAuditLogOutput, verifyAuditLogOutput } from "../domain/audit/schemas";
import { listAuditLog, verifyAuditLog } from "../domain/audit/service";
import { ownerProcedure, router } from "../trpc/init";

export const auditLogRouter = router({
  list: ownerProcedure
    .meta({ openapi: { method: "GET", path: "/business/audit-log", tags: ["audit"], summary: "Staff audit log: every change made through /business or the dashboard (owner)", protect: true } })
    .input(listAuditLogInput)
    .output(listAuditLogOutput)
    .query(({ ctx, input }) => listAuditLog(ctx.businessId, input)),
  verify: ownerProcedure
    .meta({ openapi: { method: "GET", path: "/business/audit-log/verify", tags: ["audit"], summary: "Recompute the audit log's hash chain (owner)", protect: true } })
    .input(z.strictObject({}).optional())
    .output(verifyAuditLogOutput)
    .query(({ ctx }) => verifyAuditLog(ctx.businessId)),
});
