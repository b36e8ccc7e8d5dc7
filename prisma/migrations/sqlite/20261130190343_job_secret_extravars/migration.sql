-- AlterTable
ALTER TABLE "Job" ADD COLUMN "secretExtravars" TEXT;

-- Password values of jobs that ended are never needed again: remove them from the extravars.
-- A password field is a key whose value the job shows as "********" (the launch redacted exactly
-- those). Jobs not ended yet are handled at start by server/jobs/job-secrets.ts, which keeps
-- what they still need encrypted in "secretExtravars".
UPDATE "Job"
SET "extravars" = (
    SELECT json_group_object(e."key", json("Job"."extravars" -> e."fullkey"))
    FROM json_each("Job"."extravars") AS e
    WHERE e."key" NOT IN (SELECT v."key" FROM json_each("Job"."values") AS v WHERE v."type" = 'text' AND v."value" = '********')
)
WHERE "status" IN ('success', 'failed', 'aborted', 'abandoned', 'rejected')
  AND EXISTS (SELECT 1 FROM json_each("Job"."values") AS v WHERE v."type" = 'text' AND v."value" = '********');
