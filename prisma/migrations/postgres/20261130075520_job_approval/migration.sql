-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "decidedAt" TIMESTAMP(3),
ADD COLUMN     "decidedBy" TEXT,
ADD COLUMN     "queuedAt" TIMESTAMP(3);
