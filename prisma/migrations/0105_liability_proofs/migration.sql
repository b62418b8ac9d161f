-- Proofs of liabilities (docs/trust.md, "Proofs of liabilities"): one row per published proof and
-- one per participant leaf, both append-only like the ledger (deleting a business removes them
-- with it). The tree column holds every node hash of the Merkle tree (32 bytes each, root first),
-- stored uncompressed out of line so that a participant's path reads only its own slices.

ALTER TYPE "JobType" ADD VALUE IF NOT EXISTS 'LIABILITY_PROOF';

CREATE TABLE "LiabilityProof" (
  "id"             TEXT NOT NULL,
  "businessId"     TEXT NOT NULL,
  "environment"    "Environment" NOT NULL,
  "root"           TEXT NOT NULL,
  "totalOwedWei"   DECIMAL(78,0) NOT NULL,
  "participants"   INTEGER NOT NULL,
  "poolBalanceWei" DECIMAL(78,0) NOT NULL,
  "blockNumber"    BIGINT NOT NULL,
  "chainId"        INTEGER NOT NULL,
  "ledgerSeq"      BIGINT NOT NULL,
  "ledgerHead"     TEXT,
  "signer"         TEXT NOT NULL,
  "signature"      TEXT NOT NULL,
  "covered"        BOOLEAN NOT NULL,
  "reason"         TEXT NOT NULL,
  "createdAt"      TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "tree"           BYTEA NOT NULL,
  CONSTRAINT "LiabilityProof_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "LiabilityProof_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "LiabilityProof_amounts_check" CHECK ("totalOwedWei" >= 0 AND "poolBalanceWei" >= 0 AND "participants" >= 0 AND "blockNumber" >= 0),
  -- covered is what the amounts say, never a claim of its own.
  CONSTRAINT "LiabilityProof_covered_check" CHECK ("covered" = ("totalOwedWei" <= "poolBalanceWei")),
  CONSTRAINT "LiabilityProof_reason_check" CHECK ("reason" IN ('MANUAL', 'PAYOUT', 'DAILY')),
  -- One 32-byte node per tree position: 2n - 1 nodes for n leaves (one zero node for no leaf).
  CONSTRAINT "LiabilityProof_tree_check" CHECK (length("tree") = 32 * GREATEST(2 * "participants" - 1, 1))
);
ALTER TABLE "LiabilityProof" ALTER COLUMN "tree" SET STORAGE EXTERNAL;
CREATE INDEX "LiabilityProof_businessId_environment_createdAt_idx" ON "LiabilityProof"("businessId", "environment", "createdAt");

CREATE TABLE "LiabilityProofLeaf" (
  "proofId"       TEXT NOT NULL,
  "participantId" TEXT NOT NULL,
  "treeIndex"     INTEGER NOT NULL,
  "owedWei"       DECIMAL(78,0) NOT NULL,
  CONSTRAINT "LiabilityProofLeaf_pkey" PRIMARY KEY ("proofId", "participantId"),
  CONSTRAINT "LiabilityProofLeaf_proofId_fkey" FOREIGN KEY ("proofId") REFERENCES "LiabilityProof"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "LiabilityProofLeaf_owedWei_check" CHECK ("owedWei" >= 0 AND "treeIndex" >= 0)
);

-- Published is published: no UPDATE, no DELETE, except with the business (its cascade runs after
-- the business row is gone).
CREATE FUNCTION "LiabilityProof_append_only"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  owner TEXT;
BEGIN
  IF TG_TABLE_NAME = 'LiabilityProof' THEN
    owner := OLD."businessId";
  ELSE
    SELECT p."businessId" INTO owner FROM "LiabilityProof" p WHERE p.id = OLD."proofId";
  END IF;
  IF owner IS NULL OR NOT EXISTS (SELECT 1 FROM "Business" b WHERE b.id = owner) THEN
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION '% is append-only: published proofs cannot be updated or deleted', TG_TABLE_NAME
    USING ERRCODE = 'check_violation';
END
$fn$;

CREATE TRIGGER "LiabilityProof_no_change" BEFORE UPDATE OR DELETE ON "LiabilityProof"
  FOR EACH ROW EXECUTE FUNCTION "LiabilityProof_append_only"();
CREATE TRIGGER "LiabilityProofLeaf_no_change" BEFORE UPDATE OR DELETE ON "LiabilityProofLeaf"
  FOR EACH ROW EXECUTE FUNCTION "LiabilityProof_append_only"();
