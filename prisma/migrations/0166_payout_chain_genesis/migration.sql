-- A local development chain (chain id 31337 / 1337) is in memory: each start is a new chain with
-- a new genesis block, nonces from 0, while the database keeps the payouts of the chains before.
-- Payouts signed on such a chain record its genesis hash, and a sending address's nonces are
-- unique per genesis (on every other chain the column stays null: one sequence, as before).
ALTER TABLE "Payout" ADD COLUMN "chainGenesis" TEXT;

DROP INDEX "Payout_sender_nonce_key";
CREATE UNIQUE INDEX "Payout_sender_nonce_key" ON "Payout" ("environment", "fromAddress", COALESCE("chainGenesis", ''), "nonce")
  WHERE "nonce" IS NOT NULL AND "status" <> 'FAILED';
