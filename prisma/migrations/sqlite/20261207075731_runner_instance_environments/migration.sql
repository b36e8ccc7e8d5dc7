-- AlterTable
ALTER TABLE "RunnerInstance" ADD COLUMN "environments" JSONB;
