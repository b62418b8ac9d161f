-- A proof's leaves in one column of the proof (docs/trust.md, "How proofs are stored"): one
-- 68-byte entry per participant, sorted by participant key: the leaf's abi encoding (participant
-- key, owed wei as uint256) then its tree position (int32, big-endian). A participant's entry is
-- found by a binary search over slices of the column (stored uncompressed, out of line, like the
-- tree), so a proof is one row however many participants it covers.
-- Proofs published before keep their LiabilityProofLeaf rows and no leaves column; every proof
-- written from now on must carry its leaves (NOT VALID: the check binds new rows, not old ones).
ALTER TABLE "LiabilityProof" ADD COLUMN "leaves" BYTEA;
ALTER TABLE "LiabilityProof" ALTER COLUMN "leaves" SET STORAGE EXTERNAL;
ALTER TABLE "LiabilityProof" ADD CONSTRAINT "LiabilityProof_leaves_check"
  CHECK ("leaves" IS NOT NULL AND length("leaves") = 68 * "participants") NOT VALID;
