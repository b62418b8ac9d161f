-- A participant's clicks (staff participant page, the portal's /portal/api/me) read their daily
-- rollups by participant: the primary key leads with the business, so without this index the
-- read would walk every rollup row of the business.
CREATE INDEX "LinkClickDay_participantId_day_idx" ON "LinkClickDay" ("participantId", "day");
