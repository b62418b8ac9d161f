-- A referral created through a publishable (browser) key is provisional: it blocks no referral
-- sent with a secret key (which supersedes it), is never qualified, and is confirmed when the
-- same pair is sent with a secret key.
ALTER TABLE "Referral" ADD COLUMN "provisional" BOOLEAN NOT NULL DEFAULT false;
