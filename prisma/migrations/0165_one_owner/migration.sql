-- One OWNER per business. Two transfers of ownership at once could each demote the same owner
-- and promote a different member; the service now serialises transfers on the business row and
-- this index refuses a second owner whatever the path. A business that got two owners that way
-- keeps the one Business.ownerId names (else the earliest); the others become members, as a
-- transfer leaves them.
UPDATE "Member" m SET role = 'MEMBER', "updatedAt" = now()
  FROM (SELECT o.id, row_number() OVER (PARTITION BY o."businessId" ORDER BY (o."userId" IS NOT DISTINCT FROM b."ownerId") DESC, o."createdAt", o.id) AS rank
          FROM "Member" o JOIN "Business" b ON b.id = o."businessId"
         WHERE o.role = 'OWNER') k
 WHERE m.id = k.id AND k.rank > 1;

CREATE UNIQUE INDEX "Member_one_owner_key" ON "Member" ("businessId") WHERE role = 'OWNER';
