-- AlterTable
ALTER TABLE "Form" ADD COLUMN "sourceCommit" TEXT;
ALTER TABLE "Form" ADD COLUMN "sourceName" TEXT;

-- AlterTable
ALTER TABLE "Job" ADD COLUMN "outputPurgedAt" DATETIME;
ALTER TABLE "Job" ADD COLUMN "scheduleId" INTEGER;
ALTER TABLE "Job" ADD COLUMN "sourceCommit" TEXT;
ALTER TABLE "Job" ADD COLUMN "sourceName" TEXT;

-- CreateTable
CREATE TABLE "Source" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "ref" TEXT,
    "credential" TEXT,
    "formsPath" TEXT NOT NULL DEFAULT '',
    "syncIntervalMinutes" INTEGER,
    "webhookSecret" TEXT,
    "commit" TEXT,
    "syncedAt" DATETIME,
    "syncStatus" TEXT,
    "syncError" TEXT,
    "syncErrors" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Schedule" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "formName" TEXT NOT NULL,
    "values" JSONB NOT NULL,
    "runOptions" JSONB,
    "secretValues" TEXT,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "overlap" TEXT NOT NULL DEFAULT 'skip',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "pausedReason" TEXT,
    "ownerId" TEXT NOT NULL,
    "nextRunAt" DATETIME,
    "lastRunAt" DATETIME,
    "lastJobId" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "NotificationDelivery" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "jobId" INTEGER NOT NULL,
    "formName" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "responseStatus" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "Source_name_key" ON "Source"("name");

-- CreateIndex
CREATE INDEX "Schedule_enabled_nextRunAt_idx" ON "Schedule"("enabled", "nextRunAt");

-- CreateIndex
CREATE INDEX "NotificationDelivery_status_nextAttemptAt_idx" ON "NotificationDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "NotificationDelivery_jobId_idx" ON "NotificationDelivery"("jobId");

-- CreateIndex
CREATE UNIQUE INDEX "NotificationDelivery_jobId_event_channel_target_key" ON "NotificationDelivery"("jobId", "event", "channel", "target");
