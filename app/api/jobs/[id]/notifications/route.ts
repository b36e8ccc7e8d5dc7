import { NextResponse } from "next/server";
import { readableJobId, route } from "@/server/api/route";
import { listJobDeliveries } from "@/server/data/notifications";

/** The job's notification deliveries (form.yaml `notify`): webhooks and emails, their attempts and last errors. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const jobId = await readableJobId(request, (await params).id);
  return NextResponse.json({ deliveries: await listJobDeliveries(jobId) });
});
