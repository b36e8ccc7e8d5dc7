-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "drift" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Schedule" ADD COLUMN     "mode" TEXT NOT NULL DEFAULT 'run';

-- CreateTable
CREATE TABLE "HostDrift" (
    "host" TEXT NOT NULL,
    "formName" TEXT NOT NULL,
    "checkedAt" TIMESTAMP(3) NOT NULL,
    "checkedJobId" INTEGER NOT NULL,
    "since" TIMESTAMP(3),
    "sinceJobId" INTEGER,
    "jobId" INTEGER,
    "userId" TEXT,
    "tasks" JSONB,

    CONSTRAINT "HostDrift_pkey" PRIMARY KEY ("host","formName")
);

-- CreateIndex
CREATE INDEX "HostDrift_since_idx" ON "HostDrift"("since");
