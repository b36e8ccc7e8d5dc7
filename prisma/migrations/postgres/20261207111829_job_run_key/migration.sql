-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "runKey" TEXT;

-- CreateIndex
CREATE INDEX "Job_formName_runKey_id_idx" ON "Job"("formName", "runKey", "id");
