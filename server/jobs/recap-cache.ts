/**
 * Recaps of finished jobs are computed once and kept on the job: comparisons and trends read
 * many of them, and a long log need not be parsed again on every request. Storing new items
 * for a job clears its cached recap (a late end after an app-side abandon, say). Retention
 * caches a job's recap before it removes the output (server/retention): from then on the
 * cached recap is the only one, never computed again from the (missing) output.
 */
import { findCachedRecap, storeCachedRecap } from "../data/jobs";
import type { Recap } from "../recap/types";
import { isFinalStatus } from "./lifecycle";
import { jobRecap, type RecapSource } from "./recap";

export async function cachedJobRecap(jobId: number): Promise<{ recap: Recap; source: RecapSource }> {
  const row = await findCachedRecap(jobId);
  const cached = row?.recap as Recap | null | undefined;
  // A recap cached before a job-only field existed is computed again: partial_hosts
  // of an incomplete run, changed_results and playbook_sec of a recap from events.
  const stale =
    (cached?.status === "incomplete" && cached.partial_hosts === undefined) ||
    (row?.recapSource === "events" && (cached?.changed_results === undefined || cached.playbook_sec === undefined));
  const purged = row?.outputPurgedAt != null;
  if (row && cached && (!stale || purged) && (row.recapSource === "events" || row.recapSource === "text")) {
    return { recap: cached, source: row.recapSource };
  }
  const result = await jobRecap(jobId);
  if (row && isFinalStatus(row.status)) await storeCachedRecap(jobId, row.status, result.recap, result.source);
  return result;
}
