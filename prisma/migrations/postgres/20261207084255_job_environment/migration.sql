-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "environment" JSONB;
