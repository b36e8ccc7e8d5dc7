-- CreateTable
CREATE TABLE "Host" (
    "name" TEXT NOT NULL,
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Host_pkey" PRIMARY KEY ("name")
);

-- Hosts already kept by runs (the HostRun table came one migration before).
INSERT INTO "Host" ("name") SELECT DISTINCT "host" FROM "HostRun";
