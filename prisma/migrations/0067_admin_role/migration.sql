-- ADMIN: a member the owner trusts with what changes what the pool pays (reward amounts, tiers,
-- referral rules, events recorded from the dashboard). MEMBER reads and reviews.
ALTER TYPE "MemberRole" ADD VALUE IF NOT EXISTS 'ADMIN';
