import { listOutput } from "../data/jobs";
import { requireJob } from "./access";
import { isFinalStatus } from "./lifecycle";

/**
 * Up to `limit` output chunks of a job after sequence number `after`; `done` once the job has
 * ended and this page reached the end of its output.
 */
export async function jobOutputPage(jobId: number, after: number, limit: number) {
  const job = await requireJob(jobId);
  const chunks = await listOutput(job.id, after, limit);
  const done = isFinalStatus(job.status) && chunks.length < limit;
  return { chunks, lastSeq: chunks.at(-1)?.seq ?? after, done };
}
