import { z } from "zod";
import { isoInstant } from "../../shared/dates";
import { listCursor, listLimit, pageOutput } from "../../shared/list-page";
import { environment } from "../../shared/environment";

export const listAuditLogInput = z.strictObject({
  environment: environment.optional(),
  /** A user id or an email of the staff member who made the change. */
  actor: z.string().min(1).max(320).optional(),
  /** The action, e.g. "config.updateGeneral"; a trailing "." matches a whole area ("webhooks."). */
  action: z.string().min(1).max(100).optional(),
  from: isoInstant.optional(),
  to: isoInstant.optional(),
  limit: listLimit,
  cursor: listCursor,
});
export type ListAuditLogInput = z.infer<typeof listAuditLogInput>;

const json = z.unknown().nullable();

const auditEntryOutput = z.object({
  auditId: z.string(),
  seq: z.string(),
  at: z.string(),
  environment: environment.nullable(),
  /** The staff member (userId, email) or, for a change made through an SDK route, the API key (apiKeyId). */
  actor: z.object({ userId: z.string().nullable(), email: z.string().nullable(), apiKeyId: z.string().nullable() }),
  action: z.string(),
  target: z.string().nullable(),
  before: json,
  after: json,
  /** What changed, in the API's words: `{ field: "referralRewardEth", before: "0.01", after: "0.02" }`. */
  changes: z.array(z.object({ field: z.string(), before: json, after: json })),
  /** HMAC-SHA-256 of the client IP under the server's secret: equal IPs match, no IP is stored. */
  ipHash: z.string().nullable(),
  hash: z.string(),
});

export const listAuditLogOutput = pageOutput(auditEntryOutput);

export const verifyAuditLogOutput = z.object({
  entries: z.number().int(),
  head: z.string().nullable(),
  ok: z.boolean(),
  firstBadEntryId: z.string().nullable(),
});
