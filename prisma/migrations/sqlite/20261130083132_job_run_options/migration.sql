-- AlterTable
ALTER TABLE "Job" ADD COLUMN "runOptions" JSONB;
