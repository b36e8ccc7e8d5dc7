import { DomainError } from "../errors";
import { getJobView, type JobView } from "../data/jobs";

export async function requireJob(id: number): Promise<JobView> {
  const job = await getJobView(id);
  if (!job) throw new DomainError("not_found", `no job ${id}`);
  return job;
}
