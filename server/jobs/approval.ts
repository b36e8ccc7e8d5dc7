/**
 * Jobs of forms with `requiresApproval` wait in status `approval`: they reach no runner (no
 * secrets are sealed, nothing is dispatched) until an admin approves them.
 */
import { z } from "zod";
import { DomainError } from "../errors";
import { decideApproval, type JobView } from "../data/jobs";
import type { PublicUser } from "../data/users";
import { playformRuntime } from "../runtime";
import { requireJob } from "./access";

export const decisionSchema = z.object({ comment: z.string().trim().max(500).optional() });

export async function decide(admin: PublicUser, jobId: number, approve: boolean, comment?: string): Promise<JobView> {
  const job = await requireJob(jobId);
  if (job.status !== "approval") throw new DomainError("conflict", `job ${jobId} is not waiting for approval (it is ${job.status})`);
  if (!(await decideApproval(jobId, approve, admin.username, comment || null))) {
    throw new DomainError("conflict", `job ${jobId} was decided by someone else in the meantime`);
  }
  const runtime = playformRuntime();
  if (approve) runtime.kickDispatcher();
  runtime.publishJobUpdate({ jobId, output: false, status: true });
  return requireJob(jobId);
}
