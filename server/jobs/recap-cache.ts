/**
 * Recaps of finished jobs are computed once and kept on the job: comparisons and trends read
 * many of them, and a long log need not be parsed again on every request. Storing new items
 * for a job clears its cached recap (a late end after an app-side abandon, say).
 */
import { findCachedRecap, storeCachedRecap } from "../data/jobs";
import type { Recap } from "../recap/types";
import { isFinalStatus } from "./lifecycle";
import { jobRecap, type RecapSource } from "./recap";

export async function cachedJobRecap(jobId: number): Promise<{ recap: Recap; source: RecapSource }> {
  const row = await findCachedRecap(jobId);
  if (row?.recap && (row.recapSource === "events" || row.recapSource === "text")) {
    return { recap: row.recap as Recap, source: row.recapSource };
  }
  const result = await jobRecap(jobId);
  if (row && isFinalStatus(row.status)) await storeCachedRecap(jobId, row.status, result.recap, result.source);
  return result;
}
