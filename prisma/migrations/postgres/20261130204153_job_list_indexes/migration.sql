-- DropIndex
DROP INDEX "Job_formId_createdAt_idx";

-- DropIndex
DROP INDEX "Job_status_idx";

-- CreateIndex
CREATE INDEX "Job_createdAt_id_idx" ON "Job"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Job_status_createdAt_id_idx" ON "Job"("status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Job_formName_createdAt_id_idx" ON "Job"("formName", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Job_userId_createdAt_id_idx" ON "Job"("userId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Job_runnerId_createdAt_id_idx" ON "Job"("runnerId", "createdAt", "id");
