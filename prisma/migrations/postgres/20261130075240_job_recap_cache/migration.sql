-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "recap" JSONB,
ADD COLUMN     "recapSource" TEXT;
