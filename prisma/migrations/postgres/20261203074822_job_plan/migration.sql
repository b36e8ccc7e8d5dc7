-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "plan" JSONB;

-- CreateTable
CREATE TABLE "JobFile" (
    "sha256" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "JobFile_pkey" PRIMARY KEY ("sha256")
);
