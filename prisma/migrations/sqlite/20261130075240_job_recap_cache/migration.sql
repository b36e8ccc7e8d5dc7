-- AlterTable
ALTER TABLE "Job" ADD COLUMN "recap" JSONB;
ALTER TABLE "Job" ADD COLUMN "recapSource" TEXT;
