-- AlterTable
ALTER TABLE "Runner" ADD COLUMN     "tokenSeed" TEXT;
