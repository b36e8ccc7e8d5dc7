-- AlterTable
ALTER TABLE "Runner" ADD COLUMN     "certPinnedAt" TIMESTAMP(3),
ADD COLUMN     "inboundNoTls" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "linkError" TEXT,
ADD COLUMN     "linkErrorAt" TIMESTAMP(3),
ADD COLUMN     "presentedFingerprint" TEXT;
