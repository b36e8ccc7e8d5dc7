-- AlterTable
ALTER TABLE "RunnerInstance" ADD COLUMN     "heartbeatMs" INTEGER;
