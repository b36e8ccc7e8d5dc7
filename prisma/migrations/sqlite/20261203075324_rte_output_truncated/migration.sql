-- AlterTable (issue 19, item 13): SQLite adds a NOT NULL column with a constant default in
-- place, so the Job table is not copied.
ALTER TABLE "Job" ADD COLUMN "outputTruncated" BOOLEAN NOT NULL DEFAULT false;
