-- AlterTable
ALTER TABLE "Job" ADD COLUMN "artifacts" JSONB;
