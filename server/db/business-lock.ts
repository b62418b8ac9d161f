// One staff change at a time per business where a cap or a single owner is checked before a
// write (API keys, webhook endpoints, tiers, commission rules, ownership): the business row, in
// the mode that blocks neither readers nor the foreign-key checks of the event path's inserts.
import type { Tx } from "./client";

export async function lockBusiness(tx: Tx, businessId: string): Promise<void> {
  await tx.$queryRawUnsafe(`SELECT 1 FROM "Business" WHERE id = $1 FOR NO KEY UPDATE`, businessId);
}
