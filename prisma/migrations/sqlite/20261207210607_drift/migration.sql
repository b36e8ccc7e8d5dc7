-- CreateTable
CREATE TABLE "HostDrift" (
    "host" TEXT NOT NULL,
    "formName" TEXT NOT NULL,
    "checkedAt" DATETIME NOT NULL,
    "checkedJobId" INTEGER NOT NULL,
    "since" DATETIME,
    "sinceJobId" INTEGER,
    "jobId" INTEGER,
    "userId" TEXT,
    "tasks" JSONB,

    PRIMARY KEY ("host", "formName")
);

-- AlterTable (an added column with a constant default: no copy of the Job table)
ALTER TABLE "Job" ADD COLUMN "drift" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Schedule" ADD COLUMN "mode" TEXT NOT NULL DEFAULT 'run';


-- CreateIndex
CREATE INDEX "HostDrift_since_idx" ON "HostDrift"("since");
