-- CreateTable
CREATE TABLE "Upload" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sha256" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "contentType" TEXT,
    "userId" TEXT NOT NULL,
    "formName" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "jobId" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Job" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "formId" TEXT NOT NULL,
    "formName" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'run',
    "relaunchOfId" INTEGER,
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
INSERT INTO "new_Job" ("abortRequested", "createdAt", "decidedAt", "decidedBy", "dispatchedAt", "exitCode", "extravars", "finishedAt", "formId", "formName", "id", "instanceId", "lastSeq", "lines", "manifest", "outputAnsi", "outputIndexed", "queuedAt", "recap", "recapSource", "runOptions", "runnerId", "secretExtravars", "startedAt", "status", "statusReason", "userId", "values") SELECT "abortRequested", "createdAt", "decidedAt", "decidedBy", "dispatchedAt", "exitCode", "extravars", "finishedAt", "formId", "formName", "id", "instanceId", "lastSeq", "lines", "manifest", "outputAnsi", "outputIndexed", "queuedAt", "recap", "recapSource", "runOptions", "runnerId", "secretExtravars", "startedAt", "status", "statusReason", "userId", "values" FROM "Job";
DROP TABLE "Job";
ALTER TABLE "new_Job" RENAME TO "Job";
CREATE INDEX "Job_createdAt_id_idx" ON "Job"("createdAt", "id");
CREATE INDEX "Job_status_createdAt_id_idx" ON "Job"("status", "createdAt", "id");
CREATE INDEX "Job_formName_createdAt_id_idx" ON "Job"("formName", "createdAt", "id");
CREATE INDEX "Job_userId_createdAt_id_idx" ON "Job"("userId", "createdAt", "id");
CREATE INDEX "Job_runnerId_createdAt_id_idx" ON "Job"("runnerId", "createdAt", "id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Upload_sha256_idx" ON "Upload"("sha256");

-- CreateIndex
CREATE INDEX "Upload_jobId_idx" ON "Upload"("jobId");

-- CreateIndex
CREATE INDEX "Upload_createdAt_idx" ON "Upload"("createdAt");
