// Attribution of a referral to a link click. The click named by `clickId` identifies a visitor
// (its visitor hash); among that visitor's clicks on the business's links (same environment, no
// bots, the same UTC day since the hash changes daily), the environment's `attribution` picks the
// first or the last, and that click's participant is the referrer. An unknown click id (or one of
// another business) attributes nothing: the referral code decides, as without a click id.
import type { Tx } from "../../db/client";
import type { LinkClick } from "../../db/generated";
import { readConfig, type Environment } from "../config/effective";



export async function attributedClick(tx: Tx, scope: { businessId: string; environment: Environment }, clickId: string): Promise<LinkClick | null> {
  const named = await tx.linkClick.findFirst({ where: { id: clickId, businessId: scope.businessId, environment: scope.environment } });
  if (!named || named.bot) return null;
  const config = await readConfig(tx, scope.businessId, scope.environment);
  const first = config?.attribution === "FIRST_CLICK";
  const pick = await tx.linkClick.findFirst({
    where: { businessId: scope.businessId, environment: scope.environment, visitorHash: named.visitorHash, bot: false, createdAt: first ? { lte: named.createdAt } : { gte: named.createdAt } },
    orderBy: [{ createdAt: first ? "asc" : "desc" }, { id: first ? "asc" : "desc" }],
  });
  return pick ?? named;
}

/** Links a referral to its click (the first link stays). */
export async function linkReferralToClick(tx: Tx, referralId: string, clickId: string) {
  await tx.referralClick.createMany({ data: [{ referralId, clickId }], skipDuplicates: true });
}
