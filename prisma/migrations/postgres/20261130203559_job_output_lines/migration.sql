-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "lines" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "outputAnsi" TEXT,
ADD COLUMN     "outputIndexed" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "JobChunk" ADD COLUMN     "ansi" TEXT,
ADD COLUMN     "firstLine" INTEGER,
ADD COLUMN     "lineCount" INTEGER;

-- CreateTable
CREATE TABLE "JobMarker" (
    "id" SERIAL NOT NULL,
    "jobId" INTEGER NOT NULL,
    "line" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "JobMarker_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "JobMarker_jobId_line_idx" ON "JobMarker"("jobId", "line");

-- CreateIndex
CREATE INDEX "JobChunk_jobId_firstLine_idx" ON "JobChunk"("jobId", "firstLine");

-- AddForeignKey
ALTER TABLE "JobMarker" ADD CONSTRAINT "JobMarker_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;
