// The staff audit log: who changed what, when, from where (a keyed hash of the IP), with the
// state before and after. Rows are written by recordAudit in the transaction of the change and
// chained per business by the database (migration 0080), the same mechanism as the ledger.
import { createHmac } from "node:crypto";
import { db, type Prisma, type Tx } from "../../db/client";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";
import { newId } from "../../shared/ids";
import { checkCursor } from "../../shared/list-page";
import { csvCell } from "../exports/csv";
import { chainField, verifyChain, type ChainVerdict } from "../../shared/hash-chain";
import type { ListAuditLogInput } from "./schemas";

export interface AuditRecord {
  businessId: string;
  environment?: Environment | null;
  actor: { userId: string | null; email: string | null };
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
    environment: q.environment,
    ...(q.actor ? { OR: [{ actorUserId: q.actor }, { actorEmail: q.actor.toLowerCase() }] } : {}),
    ...(q.action ? (q.action.endsWith(".") ? { action: { startsWith: q.action } } : { action: q.action }) : {}),
    at: { gte: q.from, lt: q.to },
  };
}

const parse = (v: string | null): unknown => (v === null ? null : JSON.parse(v));

function auditOutput(a: Row) {
  return {
    auditId: a.id,
    seq: a.seq.toString(),
    at: a.at.toISOString(),
    environment: a.environment,
    actor: { userId: a.actorUserId, email: a.actorEmail },
    action: a.action,
    target: a.target,
    before: parse(a.before),
    after: parse(a.after),
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
  yield line(["auditId", "seq", "at", "environment", "actorUserId", "actorEmail", "action", "target", "before", "after", "ipHash", "hash"]);
  let cursor: string | undefined;
  for (;;) {
    const rows = await db.auditLog.findMany({ where: where(businessId, q), orderBy: { seq: "desc" }, take: 500, ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}) });
    for (const a of rows) yield line([a.id, a.seq.toString(), a.at.toISOString(), a.environment, a.actorUserId, a.actorEmail, a.action, a.target, a.before, a.after, a.ipHash, a.hash]);
    if (rows.length < 500) return;
    cursor = rows[rows.length - 1].id;
  }
}

/** The canonical fields of an entry (the encoding of the AuditLog_canonical SQL function). */
function auditCanonical(a: Row): string {
  return [a.seq.toString(), a.id, a.businessId, a.environment, a.at.toISOString(), a.actorUserId, a.actorEmail, a.action, a.target, a.before, a.after, a.ipHash]
    .map(chainField)
    .join("");
}

/** Recomputes the business's audit chain, oldest first, 5,000 rows per query. */
export async function verifyAuditLog(businessId: string): Promise<ChainVerdict> {
  async function* rows() {
    let after = -1n;
    for (;;) {
      const page = await db.auditLog.findMany({ where: { businessId, seq: { gt: after } }, orderBy: { seq: "asc" }, take: 5000 });
      for (const a of page) yield { id: a.id, seq: a.seq, hash: a.hash, canonical: auditCanonical(a) };
      if (page.length < 5000) return;
      after = page[page.length - 1].seq;
    }
  }
  return verifyChain(rows());
}
