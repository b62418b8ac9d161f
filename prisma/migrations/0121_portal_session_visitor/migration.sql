-- The visitor (daily-salted hash of IP address + user agent, as for link clicks) that opened a
-- portal session: the referrer's own device, which the SAME_VISITOR fraud signal compares with the
-- clicks of the people they refer. No raw IP address or user agent is stored.
ALTER TABLE "PortalSession" ADD COLUMN "visitorHash" TEXT;
