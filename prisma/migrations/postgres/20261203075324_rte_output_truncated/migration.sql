-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "outputTruncated" BOOLEAN NOT NULL DEFAULT false;
