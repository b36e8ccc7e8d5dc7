-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "hostsRecorded" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "HostRun" (
    "jobId" INTEGER NOT NULL,
    "host" TEXT NOT NULL,
    "formName" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "finishedAt" TIMESTAMP(3) NOT NULL,
    "ok" INTEGER NOT NULL,
    "changed" INTEGER NOT NULL,
    "unreachable" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "skipped" INTEGER NOT NULL,
    "rescued" INTEGER NOT NULL,
    "ignored" INTEGER NOT NULL,
    "changedTasks" JSONB NOT NULL,
    "options" JSONB,

    CONSTRAINT "HostRun_pkey" PRIMARY KEY ("jobId","host")
);

-- CreateIndex
CREATE INDEX "HostRun_host_finishedAt_jobId_idx" ON "HostRun"("host", "finishedAt", "jobId");

-- CreateIndex
CREATE INDEX "HostRun_userId_host_idx" ON "HostRun"("userId", "host");

-- CreateIndex
CREATE INDEX "HostRun_formName_host_idx" ON "HostRun"("formName", "host");

-- CreateIndex
CREATE INDEX "Job_hostsRecorded_status_idx" ON "Job"("hostsRecorded", "status");

-- AddForeignKey
ALTER TABLE "HostRun" ADD CONSTRAINT "HostRun_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;
