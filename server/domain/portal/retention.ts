// Retention of the portal's short-lived rows, run by the retention sweep (jobs/retention.ts) in
// bounded batches like its other tables: wallet challenges once expired (ten minutes after issue,
// used or not: a deleted nonce is refused as unknown, so a replay still fails), and portal
// sessions a day after they ended. A session that kept the visitor hash of the device that opened
// it stays as long as raw link clicks do: SAME_VISITOR compares that hash with the clicks behind a
// referral, which may be applied days after its click.

/** A batch of wallet challenges that expired before $1. */
export const DELETE_EXPIRED_WALLET_CHALLENGES = `DELETE FROM "WalletChallenge" WHERE nonce IN (
  SELECT nonce FROM "WalletChallenge" WHERE "expiresAt" < $1::timestamp(3)
   ORDER BY "expiresAt" LIMIT $2 FOR UPDATE SKIP LOCKED)`;

/**
 * A batch of portal sessions that ended before $1; one that kept its device's visitor hash only
 * once it also ended before $3 (the raw clicks' cutoff).
 */
export const DELETE_ENDED_PORTAL_SESSIONS = `DELETE FROM "PortalSession" WHERE id IN (
  SELECT id FROM "PortalSession" WHERE "expiresAt" < $1::timestamp(3) AND ("visitorHash" IS NULL OR "expiresAt" < $3::timestamp(3))
   ORDER BY "expiresAt" LIMIT $2 FOR UPDATE SKIP LOCKED)`;
