-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'run',
ADD COLUMN     "relaunchOfId" INTEGER;

-- CreateTable
CREATE TABLE "Upload" (
    "id" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "contentType" TEXT,
    "userId" TEXT NOT NULL,
    "formName" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "jobId" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Upload_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Upload_sha256_idx" ON "Upload"("sha256");

-- CreateIndex
CREATE INDEX "Upload_jobId_idx" ON "Upload"("jobId");

-- CreateIndex
CREATE INDEX "Upload_createdAt_idx" ON "Upload"("createdAt");
