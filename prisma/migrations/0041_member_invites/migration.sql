-- Invite links: an INVITED member carries the SHA-256 of a one-time token and its expiry. The
-- link is used once (accepting clears the hash) and not after inviteExpiresAt.
ALTER TABLE "Member" ADD COLUMN "inviteTokenHash" TEXT;
ALTER TABLE "Member" ADD COLUMN "inviteExpiresAt" TIMESTAMP(3);
CREATE UNIQUE INDEX "Member_inviteTokenHash_key" ON "Member"("inviteTokenHash");
-- Only a pending invitation may hold a token.
ALTER TABLE "Member" ADD CONSTRAINT "Member_invite_token_check" CHECK ("inviteTokenHash" IS NULL OR ("status" = 'INVITED' AND "userId" IS NULL AND "inviteExpiresAt" IS NOT NULL));
