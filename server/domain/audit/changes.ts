// The audit log speaks the API's words: amounts in the asset they count (the row's environment's:
// ETH or its token; business-wide amounts such as tiers are stored at ETH's decimals) under the
// names the routes use (`referralRewardEth`, `maxEthPerDayPerUser`), and each entry lists what
// changed, `referralRewardEth: 0.01 → 0.02`, rather than two stored rows to compare.
import { amountOf, ETH_ASSET, type Asset } from "../../shared/asset";

/** A stored amount's API name: `referralRewardWei` → `referralRewardEth`, `maxEthPerDayPerUserWei` → `maxEthPerDayPerUser`. */
function apiAmountName(key: string): string | null {
  if (!key.endsWith("Wei") || key === "Wei") return null;
  const stem = key.slice(0, -3);
  return stem.includes("Eth") ? stem : `${stem}Eth`;
}

/** A stored field and its value in the API's words: base-unit amounts (integer text) become amounts of `asset` under their API name. */
export function inApiWords(key: string, value: unknown, asset: Pick<Asset, "decimals"> = ETH_ASSET): [string, unknown] {
  const name = apiAmountName(key);
  if (name === null || (typeof value !== "string" && typeof value !== "bigint") || !/^-?\d+$/.test(String(value))) return [key, value];
  return [name, amountOf(BigInt(value), asset)];
}

export interface AuditChange {
  /** The field's API name; a nested one is joined with dots ("TEST.referralRewardEth"). */
  field: string;
  before: unknown;
  after: unknown;
}

/** Bookkeeping that changes with every write and says nothing about the change. */
const NOISE = new Set(["updatedAt"]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function leaves(v: unknown, prefix: string, out: Map<string, unknown>): Map<string, unknown> {
  if (!isRecord(v)) {
    if (prefix) out.set(prefix, v);
    return out;
  }
  for (const [k, x] of Object.entries(v)) if (!NOISE.has(k)) leaves(x, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/** The fields whose values differ between `before` and `after` (lists compare whole), in the order they appear. */
export function auditChanges(before: unknown, after: unknown): AuditChange[] {
  const a = leaves(before, "", new Map());
  const b = leaves(after, "", new Map());
  const out: AuditChange[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(field) ?? null;
    const y = b.get(field) ?? null;
    if (JSON.stringify(x) !== JSON.stringify(y)) out.push({ field, before: x, after: y });
  }
  return out;
}
