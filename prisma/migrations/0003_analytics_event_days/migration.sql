-- CreateTable
CREATE TABLE "AnalyticsEventDay" (
    "businessId" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "campaignKey" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "events" INTEGER NOT NULL,
    "computedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AnalyticsEventDay_pkey" PRIMARY KEY ("businessId","environment","campaignKey","day")
);

-- AddForeignKey
ALTER TABLE "AnalyticsEventDay" ADD CONSTRAINT "AnalyticsEventDay_businessId_fkey" FOREIGN KEY ("businessId") REFERENCES "Business"("id") ON DELETE CASCADE ON UPDATE CASCADE;

