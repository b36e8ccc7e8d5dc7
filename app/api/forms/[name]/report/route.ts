import { NextResponse } from "next/server";
import { formReport as formReportContract } from "@/server/api/contracts/forms";
import { parseQuery, requireViewer, route } from "@/server/api/route";
import { requireFormOfRuns } from "@/server/access/policy";
import { checkReportJobs, formReport, reportCsv, reportMarkdown } from "@/server/jobs/report";

const FILES = {
  md: { contentType: "text/markdown; charset=utf-8", extension: "md", render: reportMarkdown },
  csv: { contentType: "text/csv; charset=utf-8", extension: "csv", render: reportCsv },
  json: {
    contentType: "application/json; charset=utf-8",
    extension: "json",
    render: (report: unknown) => JSON.stringify(report, null, 2) + "\n",
  },
} as const;

/**
 * A report across 2 to 20 finished runs of a form, in the order given (docs/api.md, Report
 * across runs). `format=md|csv|json` answers a file to download.
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  const viewer = await requireViewer(request);
  const { form } = await requireFormOfRuns(viewer, (await params).name);
  const query = parseQuery(request, formReportContract.query);
  const report = await formReport(viewer, form.name, checkReportJobs(query.jobs));
  if (query.format === undefined) return NextResponse.json(report);
  const file = FILES[query.format];
  const ids = report.jobs.map((job) => job.id).join("-");
  return new Response(file.render(report), {
    headers: {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${form.name}-report-${ids}.${file.extension}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
