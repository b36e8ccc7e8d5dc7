import { AppError } from "../api/errors";
import { getJobView, type JobView } from "../data/jobs";

export async function requireJob(id: number): Promise<JobView> {
  const job = await getJobView(id);
  if (!job) throw new AppError("not_found", `no job ${id}`);
  return job;
}
