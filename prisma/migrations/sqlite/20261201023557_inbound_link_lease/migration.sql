-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Runner" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "tokenHash" TEXT,
    "joinSecretHash" TEXT,
    "pendingToken" TEXT,
    "tokenSeed" TEXT,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "mode" TEXT NOT NULL DEFAULT 'outbound',
    "address" TEXT,
    "version" TEXT,
    "capacity" INTEGER NOT NULL DEFAULT 4,
    "certFingerprint" TEXT,
    "certPinnedAt" DATETIME,
    "inboundNoTls" BOOLEAN NOT NULL DEFAULT false,
    "linkError" TEXT,
    "linkErrorAt" DATETIME,
    "presentedFingerprint" TEXT,
    "linkHolder" TEXT,
    "linkLeaseEpoch" INTEGER NOT NULL DEFAULT 0,
    "lastHeartbeatAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decidedAt" DATETIME
);
INSERT INTO "new_Runner" ("address", "capacity", "certFingerprint", "certPinnedAt", "createdAt", "decidedAt", "id", "inboundNoTls", "isDefault", "joinSecretHash", "lastHeartbeatAt", "linkError", "linkErrorAt", "mode", "name", "pendingToken", "presentedFingerprint", "status", "tokenHash", "tokenSeed", "version") SELECT "address", "capacity", "certFingerprint", "certPinnedAt", "createdAt", "decidedAt", "id", "inboundNoTls", "isDefault", "joinSecretHash", "lastHeartbeatAt", "linkError", "linkErrorAt", "mode", "name", "pendingToken", "presentedFingerprint", "status", "tokenHash", "tokenSeed", "version" FROM "Runner";
DROP TABLE "Runner";
ALTER TABLE "new_Runner" RENAME TO "Runner";
CREATE UNIQUE INDEX "Runner_name_key" ON "Runner"("name");
CREATE UNIQUE INDEX "Runner_tokenHash_key" ON "Runner"("tokenHash");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
