-- A referral reversed as a whole (a chargeback of the referred user, a reversal event, staff
-- reversing its one-time reward) records when on itself: the commission rules read it from the
-- referral row they already lock (rules/state.ts, rules/decide.ts) and pay such a referral no
-- more. Before, only a reversed PAID REFERRAL or BONUS reward said so, which a commission-only
-- program (or one whose one-time rewards were refused) never has. A refund of one event by
-- eventId reverses that event's share only and does not set it.
ALTER TABLE "Referral" ADD COLUMN "reversedAt" TIMESTAMP(3);

-- Referrals reversed so far: those with a reversed PAID one-time reward, as of its reversal.
UPDATE "Referral" f SET "reversedAt" = v.at
  FROM (SELECT "referralId", MIN(COALESCE("reversedAt", CURRENT_TIMESTAMP)) AS at FROM "Reward"
         WHERE "referralId" IS NOT NULL AND "kind" IN ('REFERRAL', 'BONUS') AND "status" = 'PAID' AND "payoutStatus" = 'REVERSED'
         GROUP BY "referralId") v
 WHERE v."referralId" = f."id";
