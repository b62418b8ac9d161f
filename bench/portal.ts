// The portal read of `npm run bench`: a referrer with 1,000 referrals and 1,000 rewards (written
// in SQL, as the engine would leave them), and a portal session whose token authenticates
// GET /portal/api/me in the measured scenario.
import pg from "pg";
import { call } from "./api";

export async function seedPortal(url: string, databaseUrl: string, secret: string): Promise<{ token: string }> {
  const headers = { "x-api-key": secret };
  const referrer = await call(url, "POST", "/sdk/participants", { userId: "portal-referrer", email: "portal-referrer@bench.example" }, headers);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { businessId } = (await client.query(`SELECT "businessId" FROM "Participant" WHERE id = $1`, [referrer.participantId])).rows[0];
    await client.query(
      `INSERT INTO "Participant" (id, "businessId", environment, "externalId", email, "referralCode", "createdAt", "updatedAt")
       SELECT 'pbench' || g, $1, 'TEST', 'portal-friend-' || g, 'friend' || g || '@bench.example', 'PB' || lpad(g::text, 6, '0'), now(), now() FROM generate_series(1, 1000) g`,
      [businessId],
    );
    await client.query(
      `INSERT INTO "Referral" (id, "businessId", environment, "referrerId", "referredId", status, "qualifiedAt", "createdAt", "updatedAt")
       SELECT 'rbench' || g, $1, 'TEST', $2, 'pbench' || g, 'REWARDED', now() - g * interval '1 minute', now() - g * interval '1 minute', now() FROM generate_series(1, 1000) g`,
      [businessId, referrer.participantId],
    );
    await client.query(
      `INSERT INTO "Reward" (id, "businessId", environment, "participantId", "referralId", kind, "requestedWei", "amountWei", status, "createdAt", "paidAt", "payoutStatus", "payableAt")
       SELECT 'wbench' || g, $1, 'TEST', $2, 'rbench' || g, 'REFERRAL', 10000000000000000, 10000000000000000, 'PAID', now() - g * interval '1 minute', now() - g * interval '1 minute',
              (CASE WHEN g % 3 = 0 THEN 'ON_HOLD' ELSE 'PAYABLE' END)::"RewardPayoutStatus", now() + (g % 7) * interval '1 day' FROM generate_series(1, 1000) g`,
      [businessId, referrer.participantId],
    );
    await client.query(`ANALYZE "Participant"; ANALYZE "Referral"; ANALYZE "Reward"`);
  } finally {
    await client.end();
  }
  const session = await call(url, "POST", "/sdk/participants/portal-sessions", { participantId: referrer.participantId, expiresInSeconds: 86_400 }, headers);
  return { token: session.token as string };
}
