-- A referral code is unique across the installation ("Participant_referralCode_key", migration
-- 0076), which already holds it unique within each business: the per-business index is dropped,
-- one index entry fewer for every participant written. Lookups by business and code use the
-- installation-wide index (one row by the code, then its business).
DROP INDEX "Participant_businessId_referralCode_key";
