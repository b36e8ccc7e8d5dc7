import { jobLog } from "@/server/api/contracts/jobs";
import { parseQuery, readableJobId, route } from "@/server/api/route";
import { outputLog } from "@/server/jobs/output";

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const jobId = await readableJobId(request, (await params).id);
  const { ansi } = parseQuery(request, jobLog.query);
  const body = await outputLog(jobId, { ansi: ansi === "1" });
  return new Response(body, {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "content-disposition": `attachment; filename="job-${jobId}.log"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
