import type { Metadata } from "next";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { decodeSegment } from "@/components/ui/decode";
import { FormReportClient } from "./report-client";

type Params = Promise<{ name: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: `Report · ${(await params).name}` };
}

/**
 * `/forms/NAME/report?jobs=12,13,20`: runs of a form side by side (GET /api/forms/NAME/report).
 * Who may see it is the API's answer (the form's launchers and the readers of its runs): the
 * page shows its refusal as it is.
 */
export default async function FormReportPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const name = decodeSegment((await params).name);
  const raw = (await searchParams).jobs;
  const jobs = typeof raw === "string" ? raw : "";
  const user = await requirePageUser(`/forms/${encodeURIComponent(name)}/report?jobs=${encodeURIComponent(jobs)}`);
  return (
    <AppShell user={user}>
      <FormReportClient name={name} jobs={jobs} />
    </AppShell>
  );
}
