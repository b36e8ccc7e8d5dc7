-- CreateTable
CREATE TABLE "Host" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "firstSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Hosts already kept by runs (the HostRun table came one migration before).
INSERT INTO "Host" ("name") SELECT DISTINCT "host" FROM "HostRun";
