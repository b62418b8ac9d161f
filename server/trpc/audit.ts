// The staff audit log's one door: every mutation of a business procedure (tRPC from the
// dashboard, or its REST path under /business) is recorded with its actor, action (the
// procedure's path, e.g. "config.updateGeneral"), target, environment, state before and after,
// and a keyed hash of the client IP, in the same transaction as the change: the entry is written
// by a hook on the mutation's first transaction (server/db/tx-hooks.ts), or in one of its own
// right after a mutation that made its change in a single statement. Failed mutations record nothing.
import { db, type Tx } from "../db/client";
import { txScope, type TxScope } from "../db/tx-hooks";
import { inApiWords } from "../domain/audit/changes";
import { hashIp, recordAudit } from "../domain/audit/service";
import { readConfigView } from "../domain/config/service";
import { readAsset, readAssets } from "../domain/assets/read";
import { ETH_ASSET, type Asset } from "../shared/asset";
import type { ConfigOutput } from "../domain/config/schemas";
import { referralSettingsView } from "../domain/referral-settings/service";
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
type SettingsView = (client: Client, businessId: string, environment: Environment | null) => Promise<unknown>;

const flatConfig = (c: ConfigOutput | null): Record<string, unknown> | null => c && { ...c.general, ...c.spend };

/**
 * The configuration as GET /business/config shows it, general and spend fields side by side: a
 * change for one environment shows that environment; a business-wide one (it applies to both)
 * shows LIVE's values and, under `TEST`, the fields where TEST's own values differ.
 */
const configSnapshot: SettingsView = async (client, businessId, environment) => {
  const shown = flatConfig(await readConfigView(client, businessId, environment ?? "LIVE"));
  if (environment || !shown) return shown;
  const test = flatConfig(await readConfigView(client, businessId, "TEST")) ?? {};
  const differs = Object.entries(test).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(shown[k]));
  return differs.length ? { ...shown, TEST: Object.fromEntries(differs) } : shown;
};

/** Whole-business settings, in the words of their GET routes. */
const SETTINGS: Record<string, SettingsView> = {
  "config.updateGeneral": configSnapshot,
  "config.updateSpend": configSnapshot,
  "referrals.updateSettings": (client, businessId) => referralSettingsView(client, businessId),
  // The token's address under `contract`: a key naming "token" is kept out of the log as a secret.
  "config.updateAsset": async (client, businessId, environment) => {
    const a = await readAsset(client, businessId, environment ?? "LIVE");
    return { asset: a.asset, symbol: a.symbol, decimals: a.decimals, contract: a.tokenAddress };
  },
};

// Never in the log: secrets and their hashes; and, outside staff records, a participant's personal
// data (the log is append-only, so an erasure could not take it back out).
// A transaction hash is public and names what was credited or paid: kept. Stored amounts are shown
// in the API's words (`referralRewardWei` → `referralRewardEth`), in the asset of the row's
// environment (a row without one, a tier: stored at ETH's decimals).
const SECRET = /^(?!txHash$).*(hash|secret|ciphertext|token|password|inviteUrl)|^key$|rawTx/i;
const PERSONAL = /^(email|name|handle|externalId|metadata|referredUserEmail|userEmail|referrerEmail|recipient)$/;

/** The business's assets per environment, and the one the amounts being cleaned count. */
interface AmountsIn {
  assets: Record<Environment, Asset> | null;
  asset: Asset;
}

function clean(value: unknown, personal: boolean, a: AmountsIn): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object" && "toFixed" in value && typeof (value).toFixed === "function") return (value as { toFixed(): string }).toFixed();
  if (Array.isArray(value)) return value.map((v) => clean(v, personal, a));
  if (typeof value === "object") {
    const env = (value as { environment?: unknown }).environment;
    if (a.assets && (env === "TEST" || env === "LIVE")) a = { ...a, asset: a.assets[env] };
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (SECRET.test(k)) continue;
      if (personal && PERSONAL.test(k) && v !== null) {
        out[k] = "[personal data]";
        continue;
      }
      const [name, shown] = inApiWords(k, clean(v, personal, a), a.asset);
      out[name] = shown;
    }
    return out;
  }
  return value;
}

function targetOf(input: Record<string, unknown>): { key: string; model: string; id: string } | null {
  for (const [key, model] of TARGETS) if (typeof input[key] === "string") return { key, model, id: input[key] };
  return null;
}

const environmentOf = (input: Record<string, unknown>): Environment | null => (input.environment === "TEST" || input.environment === "LIVE" ? input.environment : null);

async function snapshot(client: Client, businessId: string, path: string, input: Record<string, unknown>): Promise<unknown> {
  const view = SETTINGS[path];
  if (view) return view(client, businessId, environmentOf(input));
  const t = targetOf(input);
  return t ? (client as unknown as Record<string, Finder>)[t.model].findFirst({ where: { id: t.id, businessId } }) : null;
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
  const [before, assets] = await Promise.all([snapshot(db, caller.businessId, path, input).catch(() => null), readAssets(db, caller.businessId).catch(() => null)]);
  const amounts: AmountsIn = { assets, asset: ETH_ASSET };
  const environment = environmentOf(input);
  const entry = (after: unknown, output: unknown, created?: string) => ({
    businessId: caller.businessId,
    environment,
    actor: { userId: caller.user.id, email: caller.user.email },
    action: path,
    target: target ? `${target.key}:${target.id}` : (created ?? createdTarget(output)),
    before: clean(before, personal, amounts),
    after: clean(after ?? output ?? null, personal, amounts),
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
