-- CreateIndex
CREATE INDEX "Referral_businessId_environment_qualifiedAt_idx" ON "Referral"("businessId", "environment", "qualifiedAt");

-- CreateIndex
CREATE INDEX "Reward_businessId_environment_status_paidAt_idx" ON "Reward"("businessId", "environment", "status", "paidAt");

-- CreateIndex
CREATE INDEX "Reward_participantId_status_paidAt_idx" ON "Reward"("participantId", "status", "paidAt");

