// Idempotency for the SDK's POST routes: a key is scoped to business + environment and kept
// 24 h. The record is inserted in the same transaction as the work it guards, through
// ON CONFLICT DO NOTHING on the unique (businessId, environment, key): a concurrent duplicate
// waits for the first transaction, then finds its committed record and replays its response.
// A request that fails (4xx) rolls back with its record, so the key can be retried.
import type { Tx } from "../db/client";
import type { Prisma } from "../db/generated";
import { AppError } from "./errors";
import { canonicalJson, sha256Hex } from "./ids";
import type { Scope } from "./scope";

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

interface Replay {
  status: number;
  body: unknown;
}

const idempotencyKeySchemaRe = /^[\x21-\x7e]{1,255}$/;

/** The key from the body field or the Idempotency-Key header; both present and different → 400. */
export function pickIdempotencyKey(fromBody: string | undefined, fromHeader: string | null): string | undefined {
  const header = fromHeader?.trim() || undefined;
  if (header !== undefined && !idempotencyKeySchemaRe.test(header)) {
    throw new AppError("VALIDATION_ERROR", "Invalid Idempotency-Key header", [{ path: "Idempotency-Key", message: "1–255 printable ASCII characters" }]);
  }
  if (header && fromBody && header !== fromBody) {
    throw new AppError("VALIDATION_ERROR", "idempotencyKey and the Idempotency-Key header differ", [{ path: "idempotencyKey", message: "differs from header" }]);
  }
  return fromBody ?? header;
}

/** Hash of what the request asks for (the key itself excluded), per route. */
export function requestHash(route: string, body: Record<string, unknown>): string {
  const { idempotencyKey: _ignored, ...rest } = body;
  return sha256Hex(`${route}\n${canonicalJson(rest)}`);
}

export type Claim = { recordId: string; replay?: undefined } | { replay: Replay; recordId?: undefined };

/**
 * The key as recorded: a publishable key's callers (anyone with the browser's key) have their own
 * namespace, so they can neither claim a key the business's server will use (its refund would
 * then be a 409) nor have their answer replayed to it (its event never recorded).
 */
export function idempotencyRecordKey(scope: Pick<Scope, "untrusted">, key: string): string {
  return scope.untrusted ? `pub:${key}` : key;
}

/** Claims the key inside `tx`: either this request owns it, or the first response is replayed. */
export async function claimIdempotencyKey(tx: Tx, scope: Scope, clientKey: string, route: string, hash: string, now = new Date()): Promise<Claim> {
  const key = idempotencyRecordKey(scope, clientKey);
  for (let attempt = 0; attempt < 2; attempt++) {
    const [inserted] = await tx.idempotencyRecord.createManyAndReturn({
      data: [{ businessId: scope.businessId, environment: scope.environment, key, route, requestHash: hash, expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) }],
      skipDuplicates: true,
      select: { id: true },
    });
    if (inserted) return { recordId: inserted.id };
    const existing = await tx.idempotencyRecord.findUnique({
      where: { businessId_environment_key: { businessId: scope.businessId, environment: scope.environment, key } },
    });
    if (!existing) continue; // deleted meanwhile: claim again
    if (existing.expiresAt <= now) {
      // Past its 24 h: the key is free again.
      await tx.idempotencyRecord.deleteMany({ where: { id: existing.id, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.route !== route || existing.requestHash !== hash) {
      throw new AppError("IDEMPOTENCY_CONFLICT", "This idempotency key was already used with a different request body");
    }
    return { replay: { status: existing.responseCode ?? 200, body: existing.responseBody } };
  }
  throw new AppError("CONFLICT", "The idempotency key is being used concurrently; retry");
}

export async function completeIdempotencyKey(tx: Tx, recordId: string, status: number, body: unknown): Promise<void> {
  await tx.idempotencyRecord.update({ where: { id: recordId }, data: { responseCode: status, responseBody: body as Prisma.InputJsonValue } });
}

/** Releases a claim whose request was refused (batch items share one transaction). */
export async function releaseIdempotencyKey(tx: Tx, recordId: string): Promise<void> {
  await tx.idempotencyRecord.deleteMany({ where: { id: recordId } });
}
