-- AlterTable
ALTER TABLE "JobChunk" ADD COLUMN "ansi" TEXT;
ALTER TABLE "JobChunk" ADD COLUMN "firstLine" INTEGER;
ALTER TABLE "JobChunk" ADD COLUMN "lineCount" INTEGER;

-- CreateTable
CREATE TABLE "JobMarker" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "jobId" INTEGER NOT NULL,
    "line" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    CONSTRAINT "JobMarker_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Job" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "formId" TEXT NOT NULL,
    "formName" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "runnerId" TEXT,
    "instanceId" TEXT,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "statusReason" TEXT,
    "exitCode" INTEGER,
    "values" JSONB NOT NULL,
    "extravars" JSONB NOT NULL,
    "secretExtravars" TEXT,
    "manifest" JSONB NOT NULL,
    "runOptions" JSONB,
    "abortRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "queuedAt" DATETIME,
    "decidedBy" TEXT,
    "decidedAt" DATETIME,
    "dispatchedAt" DATETIME,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "lastSeq" INTEGER NOT NULL DEFAULT 0,
    "recap" JSONB,
    "recapSource" TEXT,
    "lines" INTEGER NOT NULL DEFAULT 0,
    "outputAnsi" TEXT,
    "outputIndexed" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "Job_formId_fkey" FOREIGN KEY ("formId") REFERENCES "Form" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Job_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Job_runnerId_fkey" FOREIGN KEY ("runnerId") REFERENCES "Runner" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Job" ("abortRequested", "createdAt", "decidedAt", "decidedBy", "dispatchedAt", "exitCode", "extravars", "finishedAt", "formId", "formName", "id", "instanceId", "lastSeq", "manifest", "queuedAt", "recap", "recapSource", "runOptions", "runnerId", "secretExtravars", "startedAt", "status", "statusReason", "userId", "values") SELECT "abortRequested", "createdAt", "decidedAt", "decidedBy", "dispatchedAt", "exitCode", "extravars", "finishedAt", "formId", "formName", "id", "instanceId", "lastSeq", "manifest", "queuedAt", "recap", "recapSource", "runOptions", "runnerId", "secretExtravars", "startedAt", "status", "statusReason", "userId", "values" FROM "Job";
DROP TABLE "Job";
ALTER TABLE "new_Job" RENAME TO "Job";
CREATE INDEX "Job_status_idx" ON "Job"("status");
CREATE INDEX "Job_formId_createdAt_idx" ON "Job"("formId", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "JobMarker_jobId_line_idx" ON "JobMarker"("jobId", "line");

-- CreateIndex
CREATE INDEX "JobChunk_jobId_firstLine_idx" ON "JobChunk"("jobId", "firstLine");
