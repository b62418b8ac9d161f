// The staff audit log: who changed what, when, from where (a keyed hash of the IP), with the
// state before and after. Rows are written by recordAudit in the transaction of the change and
// chained per business by the database (migration 0080), the same mechanism as the ledger.
import { createHmac } from "node:crypto";
import { db, type Prisma, type Tx } from "../../db/client";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";
import { newId } from "../../shared/ids";
import { checkCursor } from "../../shared/list-page";
import { csvCell } from "../../shared/csv";
import { chainField, verifyChain, type ChainVerdict } from "../../shared/hash-chain";
import { auditChanges } from "./changes";
import type { ListAuditLogInput } from "./schemas";

export interface AuditRecord {
  businessId: string;
  environment?: Environment | null;
  /** A staff member, or (SDK routes) the API key that made the change. */
  actor: { userId: string | null; email: string | null; apiKeyId?: string | null };
  action: string;
  target?: string | null;
  before?: unknown;
  after?: unknown;
  ipHash?: string | null;
}

/** Keyed hash of a client IP: the same address always gives the same value, which reveals nothing. */
export function hashIp(ip: string | null | undefined): string | null {
  return ip ? createHmac("sha256", env.authSecret).update(`audit-ip:${ip}`).digest("hex").slice(0, 32) : null;
}

const text = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** Appends one entry; call it with the transaction of the change. */
export async function recordAudit(tx: Tx, r: AuditRecord): Promise<void> {
  await tx.auditLog.create({
    data: {
      id: newId(),
      businessId: r.businessId,
      environment: r.environment ?? null,
      actorUserId: r.actor.userId,
      actorEmail: r.actor.email,
      actorApiKeyId: r.actor.apiKeyId ?? null,
      action: r.action,
      target: r.target ?? null,
      before: text(r.before),
      after: text(r.after),
      ipHash: r.ipHash ?? null,
    },
  });
}

type Row = Prisma.AuditLogGetPayload<object>;

function where(businessId: string, q: Omit<ListAuditLogInput, "limit" | "cursor">): Prisma.AuditLogWhereInput {
  return {
    businessId,
    AND: [
      // A business-wide change (no environment) applies to both: it is listed under either.
      q.environment ? { OR: [{ environment: q.environment }, { environment: null }] } : {},
      q.actor ? { OR: [{ actorUserId: q.actor }, { actorEmail: q.actor.toLowerCase() }, { actorApiKeyId: q.actor }] } : {},
    ],
    ...(q.action ? (q.action.endsWith(".") ? { action: { startsWith: q.action } } : { action: q.action }) : {}),
    at: { gte: q.from, lt: q.to },
  };
}

const parse = (v: string | null): unknown => (v === null ? null : JSON.parse(v));

function auditOutput(a: Row) {
  const before = parse(a.before);
  const after = parse(a.after);
  return {
    auditId: a.id,
    seq: a.seq.toString(),
    at: a.at.toISOString(),
    environment: a.environment,
    actor: { userId: a.actorUserId, email: a.actorEmail, apiKeyId: a.actorApiKeyId },
    action: a.action,
    target: a.target,
    before,
    after,
    changes: auditChanges(before, after),
    ipHash: a.ipHash,
    hash: a.hash,
  };
}

/** Newest first; the cursor is the auditId of the last row of the previous page. */
export async function listAuditLog(businessId: string, q: ListAuditLogInput) {
  await checkCursor(q.cursor, (id) => db.auditLog.findFirst({ where: { id, businessId }, select: { id: true } }));
  const rows = await db.auditLog.findMany({
    where: where(businessId, q),
    orderBy: { seq: "desc" },
    take: q.limit + 1,
    ...(q.cursor ? { cursor: { id: q.cursor }, skip: 1 } : {}),
  });
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  return { data: page.map(auditOutput), nextCursor: more ? page[page.length - 1].id : null };
}

export async function* auditLogCsv(businessId: string, q: Omit<ListAuditLogInput, "limit" | "cursor">): AsyncGenerator<string> {
  const line = (cells: Array<string | null>) => `${cells.map(csvCell).join(",")}\r\n`;
  yield line(["auditId", "seq", "at", "environment", "actorUserId", "actorEmail", "action", "target", "before", "after", "ipHash", "hash", "actorApiKeyId"]);
  let cursor: string | undefined;
  for (;;) {
    const rows = await db.auditLog.findMany({ where: where(businessId, q), orderBy: { seq: "desc" }, take: 500, ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}) });
    for (const a of rows) yield line([a.id, a.seq.toString(), a.at.toISOString(), a.environment, a.actorUserId, a.actorEmail, a.action, a.target, a.before, a.after, a.ipHash, a.hash, a.actorApiKeyId]);
    if (rows.length < 500) return;
    cursor = rows[rows.length - 1].id;
  }
}

/**
 * The canonical fields of an entry (the encoding of the AuditLog_canonical SQL function): twelve
 * fields, and the API key that acted only when there is one (migration 0171).
 */
function auditCanonical(a: Row): string {
  const fields = [a.seq.toString(), a.id, a.businessId, a.environment, a.at.toISOString(), a.actorUserId, a.actorEmail, a.action, a.target, a.before, a.after, a.ipHash];
  return [...fields, ...(a.actorApiKeyId === null ? [] : [a.actorApiKeyId])].map(chainField).join("");
}

/**
 * Recomputes the business's audit chain, oldest first, 5,000 rows per query, up to the head kept
 * outside the rows (AuditLogHead, read first: entries written meanwhile belong to the next
 * verification), so newest entries removed are noticed too.
 */
export async function verifyAuditLog(businessId: string): Promise<ChainVerdict> {
  const head = await db.auditLogHead.findUnique({ where: { businessId } });
  const upTo = head?.seq ?? 0n;
  async function* rows() {
    let after = -1n;
    for (;;) {
      const page = await db.auditLog.findMany({ where: { businessId, seq: { gt: after, lte: upTo } }, orderBy: { seq: "asc" }, take: 5000 });
      for (const a of page) yield { id: a.id, seq: a.seq, hash: a.hash, canonical: auditCanonical(a) };
      if (page.length < 5000) return;
      after = page[page.length - 1].seq;
    }
  }
  return verifyChain(rows(), { seq: upTo, head: head?.head ?? null });
}
