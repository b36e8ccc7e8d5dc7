-- CreateTable
CREATE TABLE "HostRun" (
    "jobId" INTEGER NOT NULL,
    "host" TEXT NOT NULL,
    "formName" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "finishedAt" DATETIME NOT NULL,
    "ok" INTEGER NOT NULL,
    "changed" INTEGER NOT NULL,
    "unreachable" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "skipped" INTEGER NOT NULL,
    "rescued" INTEGER NOT NULL,
    "ignored" INTEGER NOT NULL,
    "changedTasks" JSONB NOT NULL,
    "options" JSONB,

    PRIMARY KEY ("jobId", "host"),
    CONSTRAINT "HostRun_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- AlterTable (a column added in place: the Job table is not copied)
ALTER TABLE "Job" ADD COLUMN "hostsRecorded" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "Job_hostsRecorded_status_idx" ON "Job"("hostsRecorded", "status");

-- CreateIndex
CREATE INDEX "HostRun_host_finishedAt_jobId_idx" ON "HostRun"("host", "finishedAt", "jobId");

-- CreateIndex
CREATE INDEX "HostRun_userId_host_idx" ON "HostRun"("userId", "host");

-- CreateIndex
CREATE INDEX "HostRun_formName_host_idx" ON "HostRun"("formName", "host");
