-- AlterTable
ALTER TABLE "AuthToken" ADD COLUMN     "parentId" TEXT,
ADD COLUMN     "scope" TEXT;

-- CreateIndex
CREATE INDEX "AuthToken_parentId_idx" ON "AuthToken"("parentId");

-- AddForeignKey
ALTER TABLE "AuthToken" ADD CONSTRAINT "AuthToken_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "AuthToken"("id") ON DELETE CASCADE ON UPDATE CASCADE;
