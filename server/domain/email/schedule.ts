// The emails no single change causes, checked hourly (the job worker's schedule, or an Inngest
// cron): WALLET_MISSING to referrers owed at least the minimum payout with no wallet (at most
// once a week each), and the daily REVIEW_QUEUE digest to staff while events wait for review.
import { db, txSql } from "../../db/client";
import type { Environment } from "../../shared/environment";
import { amountOf, type Asset } from "../../shared/asset";
import { readAsset } from "../assets/read";
import type { EmailIntent } from "./queue";
import { queueEmails } from "./queue";

const DAY_MS = 86_400_000;

type Scoped = { businessId: string; environment: Environment; intent: EmailIntent };

async function walletMissing(now: Date): Promise<Scoped[]> {
  const rows = await db.$queryRaw<{ businessId: string; environment: Environment; participantId: string; owed: string }[]>`
    SELECT r."businessId", r.environment::text AS environment, r."participantId", sum(r."amountWei" - r."reversedWei")::text AS owed
      FROM "Reward" r
      JOIN "Participant" p ON p.id = r."participantId"
      LEFT JOIN "BusinessConfig" c ON c."businessId" = r."businessId"
      LEFT JOIN "EnvironmentAsset" a ON a."businessId" = r."businessId" AND a.environment = r.environment AND a.asset = 'ERC20'
     WHERE r."payoutStatus" = 'PAYABLE' AND p."walletAddress" IS NULL AND p.email IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM "Email" e WHERE e."participantId" = r."participantId" AND e.kind = 'WALLET_MISSING' AND e."createdAt" > ${new Date(now.getTime() - 7 * DAY_MS)})
     GROUP BY r."businessId", r.environment, r."participantId", c."minPayoutWei", a.decimals
    HAVING sum(r."amountWei" - r."reversedWei") > 0
       -- the minimum is business-wide, at 18 decimals: in base units of the asset, rounded down (assets/read.ts sharedAmountUnits)
       AND sum(r."amountWei" - r."reversedWei") >= div(COALESCE(c."minPayoutWei", 0), power(10::numeric, 18 - COALESCE(a.decimals, 18)))
     LIMIT 1000`;
  const assets = new Map<string, Promise<Asset>>();
  const assetOf = (businessId: string, environment: Environment) => {
    const key = `${businessId}:${environment}`;
    if (!assets.has(key)) assets.set(key, readAsset(db, businessId, environment));
    return assets.get(key)!;
  };
  return Promise.all(
    rows.map(async (r) => ({ businessId: r.businessId, environment: r.environment, intent: { kind: "WALLET_MISSING" as const, participantId: r.participantId, data: { amountEth: amountOf(r.owed, await assetOf(r.businessId, r.environment)) } } })),
  );
}

async function reviewQueue(now: Date): Promise<Scoped[]> {
  const rows = await db.$queryRaw<{ businessId: string; environment: Environment; n: number }[]>`
    SELECT t."businessId", t.environment::text AS environment, count(*)::int AS n
      FROM "TrackedEvent" t
     WHERE t.status = 'FLAGGED'
       AND NOT EXISTS (SELECT 1 FROM "Email" e WHERE e."businessId" = t."businessId" AND e.environment = t.environment AND e.kind = 'REVIEW_QUEUE' AND e."createdAt" > ${new Date(now.getTime() - DAY_MS + 60_000)})
     GROUP BY t."businessId", t.environment
     LIMIT 1000`;
  return rows.map((r) => ({ businessId: r.businessId, environment: r.environment, intent: { kind: "REVIEW_QUEUE", data: { count: r.n } } }));
}

/** Queues the due WALLET_MISSING and REVIEW_QUEUE emails; answers how many intents it found. */
export async function scheduleEmailDigests(now = new Date()): Promise<number> {
  const due = [...(await walletMissing(now)), ...(await reviewQueue(now))];
  const groups = new Map<string, Scoped[]>();
  for (const d of due) groups.set(`${d.businessId}\u0000${d.environment}`, [...(groups.get(`${d.businessId}\u0000${d.environment}`) ?? []), d]);
  for (const list of groups.values()) {
    const { businessId, environment } = list[0];
    await db.$transaction(async (tx) => queueEmails(await txSql(tx), { businessId, environment }, list.map((d) => d.intent), now));
  }
  return due.length;
}
