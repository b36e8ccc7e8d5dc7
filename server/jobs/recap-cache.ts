/**
 * Recaps of finished jobs are computed once and kept on the job: comparisons and trends read
 * many of them, and a long log need not be parsed again on every request. Storing new items
 * for a job clears its cached recap (a late end after an app-side abandon, say).
 */
import { getDb } from "../data/db";
import { FINAL_STATUSES, type JobStatus } from "../data/jobs";
import type { Recap } from "../recap/types";
import { jobRecap, type RecapSource } from "./recap";

export async function cachedJobRecap(jobId: number): Promise<{ recap: Recap; source: RecapSource }> {
  const db = getDb();
  const row = await db.job.findUnique({ where: { id: jobId }, select: { status: true, recap: true, recapSource: true } });
  if (row?.recap && (row.recapSource === "events" || row.recapSource === "text")) {
    return { recap: row.recap as unknown as Recap, source: row.recapSource };
  }
  const result = await jobRecap(jobId);
  if (row && FINAL_STATUSES.includes(row.status as JobStatus)) {
    await db.job.updateMany({
      where: { id: jobId, status: row.status },
      data: { recap: result.recap as object, recapSource: result.source },
    });
  }
  return result;
}
