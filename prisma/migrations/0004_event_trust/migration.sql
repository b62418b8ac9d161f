-- Events recorded through a publishable (browser) key are marked untrusted: they count, and may
-- create and link referrals, but never qualify a referral nor pay a reward.
ALTER TABLE "TrackedEvent" ADD COLUMN "untrusted" BOOLEAN NOT NULL DEFAULT false;
