-- A user's personal tokens get distinct names. Names were checked in code only, so two
-- requests at once could make two of one name: before the index, every such token but the
-- oldest is renamed "NAME (first 8 characters of its id)", kept and still valid.
UPDATE "AuthToken" SET "name" = "name" || ' (' || substr("id", 1, 8) || ')'
WHERE "name" IS NOT NULL AND EXISTS (
  SELECT 1 FROM "AuthToken" AS "older"
  WHERE "older"."userId" = "AuthToken"."userId" AND "older"."name" = "AuthToken"."name"
    AND ("older"."createdAt" < "AuthToken"."createdAt" OR ("older"."createdAt" = "AuthToken"."createdAt" AND "older"."id" < "AuthToken"."id"))
);

-- CreateIndex
CREATE UNIQUE INDEX "AuthToken_userId_name_key" ON "AuthToken"("userId", "name");
