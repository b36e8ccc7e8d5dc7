-- AlterTable
ALTER TABLE "Runner" ADD COLUMN     "linkHolder" TEXT,
ADD COLUMN     "linkLeaseEpoch" INTEGER NOT NULL DEFAULT 0;
