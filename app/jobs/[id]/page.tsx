import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { findVisibleJob, viewerOf } from "@/server/access/policy";
import { findForm } from "@/server/forms/catalog";
import { uploadedFilesOfJob } from "@/server/forms/uploads";
import { JobClient } from "./job-client";

type Params = Promise<{ id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: `Job #${(await params).id}` };
}

export default async function JobPage({ params }: { params: Params }) {
  const { id } = await params;
  const user = await requirePageUser(`/jobs/${encodeURIComponent(id)}`);
  const jobId = Number(id);
  if (!/^[1-9][0-9]*$/.test(id) || !Number.isSafeInteger(jobId)) notFound();
  // After the login check: a signed-out visitor learns nothing about which jobs exist; a job
  // the user may not see is as absent as one that does not exist (server/access/policy.ts).
  const visible = await findVisibleJob(await viewerOf(user), jobId);
  if (!visible) notFound();
  // File values are upload ids: the page shows the files' names (they never change for a job).
  const form = await findForm(visible.job.form);
  const files = form ? await uploadedFilesOfJob(form, visible.job.values) : {};
  return (
    <AppShell user={user}>
      {/* The job as read here: the header shows with the page, not after a first fetch. */}
      <JobClient jobId={jobId} initial={visible} files={files} />
    </AppShell>
  );
}
