// The staff audit log's one door: every mutation of a business procedure (tRPC from the
// dashboard, or its REST path under /business) is recorded with its actor, action (the
// procedure's path, e.g. "config.updateGeneral"), target, environment, state before and after,
// and a keyed hash of the client IP, in the same transaction as the change: the entry is written
// by a hook on the mutation's first transaction (server/db/tx-hooks.ts), or in one of its own
// right after a mutation that made its change in a single statement. Failed mutations record nothing.
import { db, type Tx } from "../db/client";
import { txScope, type TxScope } from "../db/tx-hooks";
import { hashIp, recordAudit } from "../domain/audit/service";
import { CLIENT_IP_HEADER } from "../shared/client-ip";
import type { Environment } from "../shared/environment";

type Client = Tx | typeof db;
type Finder = { findFirst(args: { where: Record<string, unknown> }): Promise<unknown> };

/** Input keys that name the object a mutation changes, and where that object lives. */
const TARGETS: Array<[string, string]> = [
  ["apiKeyId", "apiKey"],
  ["webhookId", "webhookEndpoint"],
  ["tierId", "tier"],
  ["memberId", "member"],
  ["participantId", "participant"],
  ["eventId", "trackedEvent"],
  ["alertId", "alert"],
  ["rewardId", "reward"],
  ["payoutId", "payout"],
  ["deliveryId", "webhookDelivery"],
];
/**
 * Creations that run in a transaction under the business lock (server/db/business-lock.ts): in
 * the hook, before the output exists, the created object is the business's newest row of its model.
 */
const CREATED: Record<string, [string, string]> = {
  "apiKeys.create": ["apiKeyId", "apiKey"],
  "tiers.create": ["tierId", "tier"],
  "commissionRules.create": ["ruleId", "commissionRule"],
  "webhooks.create": ["webhookId", "webhookEndpoint"],
};
/** Whole-business settings: the rows a settings mutation changes. */
const SETTINGS: Record<string, string[]> = {
  "config.updateGeneral": ["businessConfig", "environmentConfig"],
  "config.updateSpend": ["businessConfig", "environmentConfig"],
  "referrals.updateSettings": ["referralSettings"],
};

// Never in the log: secrets and their hashes; and, outside staff records, a participant's personal
// data (the log is append-only, so an erasure could not take it back out).
// A transaction hash is public and names what was credited or paid: kept.
const SECRET = /^(?!txHash$).*(hash|secret|ciphertext|token|password|inviteUrl)|^key$|rawTx/i;
const PERSONAL = /^(email|name|handle|externalId|metadata|referredUserEmail|userEmail|referrerEmail)$/;

function clean(value: unknown, personal: boolean): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object" && "toFixed" in value && typeof (value).toFixed === "function") return (value as { toFixed(): string }).toFixed();
  if (Array.isArray(value)) return value.map((v) => clean(v, personal));
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (SECRET.test(k)) continue;
      out[k] = personal && PERSONAL.test(k) && v !== null ? "[personal data]" : clean(v, personal);
    }
    return out;
  }
  return value;
}

function targetOf(input: Record<string, unknown>): { key: string; model: string; id: string } | null {
  for (const [key, model] of TARGETS) if (typeof input[key] === "string") return { key, model, id: input[key] };
  return null;
}

async function snapshot(client: Client, businessId: string, path: string, input: Record<string, unknown>): Promise<unknown> {
  const models = SETTINGS[path];
  const delegates = client as unknown as Record<string, Finder & { findMany(args: { where: Record<string, unknown> }): Promise<unknown[]> }>;
  if (models) {
    const out: Record<string, unknown> = {};
    for (const m of models) out[m] = await delegates[m].findMany({ where: { businessId } });
    return out;
  }
  const t = targetOf(input);
  return t ? delegates[t.model].findFirst({ where: { id: t.id, businessId } }) : null;
}

/** Finds a created object's id in a mutation's output ({ apiKeyId }, { webhook: { webhookId } }, …). */
function createdTarget(output: unknown): string | null {
  if (!output || typeof output !== "object") return null;
  for (const [k, v] of Object.entries(output)) if (/Id$/.test(k) && typeof v === "string") return `${k}:${v}`;
  return null;
}

export interface AuditCaller {
  businessId: string;
  user: { id: string; email: string };
  headers: Headers;
}

/** Runs a mutation under the audit log: `run` is the procedure itself. */
export async function audited<T extends { ok: boolean; data?: unknown }>(caller: AuditCaller, path: string, rawInput: unknown, run: () => Promise<T>): Promise<T> {
  const input = rawInput && typeof rawInput === "object" ? (rawInput as Record<string, unknown>) : {};
  const personal = !path.startsWith("members.");
  const target = targetOf(input);
  const before = await snapshot(db, caller.businessId, path, input).catch(() => null);
  const environment: Environment | null = input.environment === "TEST" || input.environment === "LIVE" ? input.environment : null;
  const entry = (after: unknown, output: unknown, created?: string) => ({
    businessId: caller.businessId,
    environment,
    actor: { userId: caller.user.id, email: caller.user.email },
    action: path,
    target: target ? `${target.key}:${target.id}` : (created ?? createdTarget(output)),
    before: clean(before, personal),
    after: clean(after ?? output ?? null, personal),
    ipHash: hashIp(caller.headers.get(CLIENT_IP_HEADER)),
  });
  // Inside the mutation's transaction the output is not known yet: `after` is the changed row.
  const scope: TxScope<Tx> = {
    beforeCommit: async (tx) => {
      const creation = !target ? CREATED[path] : undefined;
      if (creation) {
        const [key, model] = creation;
        const delegate = (tx as unknown as Record<string, { findFirst(args: unknown): Promise<{ id: string } | null> }>)[model];
        const row = await delegate.findFirst({ where: { businessId: caller.businessId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
        await recordAudit(tx, entry(row, undefined, row ? `${key}:${row.id}` : undefined));
        return;
      }
      const after = target || SETTINGS[path] ? await snapshot(tx, caller.businessId, path, input) : null;
      await recordAudit(tx, entry(after, after === null ? input : undefined));
    },
  };
  const result = await txScope.run(scope as TxScope, run);
  const pending = scope.beforeCommit;
  scope.beforeCommit = undefined;
  if (result.ok && pending) {
    // No interactive transaction carried it: a change of one statement, now committed.
    await db.$transaction(async (tx) => {
      const after = target || SETTINGS[path] ? await snapshot(tx, caller.businessId, path, input) : null;
      await recordAudit(tx, entry(after, result.data));
    });
  }
  return result;
}
