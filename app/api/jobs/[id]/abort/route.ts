import { NextResponse } from "next/server";
import { DomainError } from "@/server/errors";
import { parseJobId, requireUser, route } from "@/server/api/route";
import { FINAL_STATUSES, finishJob, requestAbort } from "@/server/data/jobs";
import { requireJob } from "@/server/jobs/access";
import { playformRuntime } from "@/server/runtime";

export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const user = await requireUser(request);
  const job = await requireJob(parseJobId((await params).id));
  if (FINAL_STATUSES.includes(job.status)) throw new DomainError("conflict", `job ${job.id} already ended (${job.status})`);
  if (job.status === "approval") {
    // Never dispatched: nothing to cancel on a runner.
    await finishJob(job.id, "aborted", null, `aborted by ${user.username} while waiting for approval`);
  } else {
    await requestAbort(job.id);
  }
  playformRuntime().kickDispatcher();
  playformRuntime().publishJobUpdate({ jobId: job.id, output: false, status: true });
  return NextResponse.json({ job: await requireJob(job.id) }, { status: 202 });
});
