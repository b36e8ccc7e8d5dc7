import { z } from "zod";
import { parseJobId, parseQuery, requireUser, route } from "@/server/api/route";
import { outputLog } from "@/server/jobs/output";

const querySchema = z.object({ ansi: z.enum(["0", "1"], { message: "must be 0 (strip colour codes) or 1" }).default("1") });

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const jobId = parseJobId((await params).id);
  const { ansi } = parseQuery(request, querySchema);
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
