"use client";

import Link from "next/link";
import { ApiError } from "@/components/api/client";
import { FormIdempotencePanel } from "@/components/forms/form-idempotence";
import { FormTrendPanel } from "@/components/forms/form-trend";
import { draftFromJob, hasSecretFields, runDraftFromJob } from "@/components/forms/draft-from-job";
import { LaunchForm } from "@/components/forms/launch-form";
import { useForm } from "@/components/hooks/use-form";
import { Markdown } from "@/components/ui/markdown";
import { useJob } from "@/components/hooks/use-job";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";

/** `from`: Run again (`/forms/NAME?from=ID`): the form starts from job ID's values and options. */
export function FormClient({ name, from }: { name: string; from?: number }) {
  const form = useForm(name);
  // Disabled without `from` (the query never runs); with it, the form waits for the job.
  const source = useJob(from ?? 0, { enabled: from !== undefined });
  const breadcrumb = (
    <Link href="/" className="hover:text-zinc-900">
      Forms
    </Link>
  );

  if (form.isPending || (from !== undefined && source.isPending)) return <LoadingState label="Loading form…" />;
  if (form.isError) {
    if (form.error instanceof ApiError && form.error.status === 404) {
      return (
        <EmptyState title={`No form named “${name}”`}>
          <Link href="/" className="text-indigo-600 hover:underline">
            Back to the catalog
          </Link>
        </EmptyState>
      );
    }
    return <ErrorState error={form.error} onRetry={() => void form.refetch()} />;
  }

  const detail = form.data;
  // A job of another form, or one that could not be read, starts the form blank.
  const job = source.data?.form === detail.name ? source.data : undefined;
  const initial = job && {
    draft: draftFromJob(detail.fields, job.values),
    runDraft: runDraftFromJob(detail.runDefaults, job.runOptions),
  };
  return (
    <>
      <PageHeader
        eyebrow={breadcrumb}
        title={detail.title}
        description={detail.description ? <Markdown>{detail.description}</Markdown> : undefined}
      />
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-3">
        <div className="space-y-6 lg:col-span-2">
          <Panel title="Launch" bodyClassName="p-5">
            {job && (
              <p
                className="mb-4 rounded-md border border-indigo-100 bg-indigo-50 px-3 py-2 text-sm text-indigo-900"
                data-testid="relaunch-note"
              >
                Values and options of{" "}
                <Link href={`/jobs/${job.id}`} className="font-medium underline">
                  job #{job.id}
                </Link>
                .{hasSecretFields(detail.fields) && " Secrets are not copied: enter them again."}
              </p>
            )}
            {from !== undefined && !job && (
              <p className="mb-4 text-sm text-zinc-500" data-testid="relaunch-note">
                Job #{from} could not be read: the form starts from its defaults.
              </p>
            )}
            <LaunchForm form={detail} initial={initial} relaunchOf={job?.id} />
          </Panel>
          <FormTrendPanel form={detail.name} />
          <FormIdempotencePanel form={detail.name} />
        </div>
        <div className="space-y-6">
          <Panel title="Details" bodyClassName="p-0">
            <dl className="divide-y divide-zinc-100 text-sm">
              <div className="flex justify-between gap-4 px-4 py-2">
                <dt className="text-zinc-500">Form</dt>
                <dd className="font-mono text-xs text-zinc-800">{detail.name}</dd>
              </div>
              <div className="flex justify-between gap-4 px-4 py-2">
                <dt className="text-zinc-500">Playbook</dt>
                <dd className="truncate font-mono text-xs text-zinc-800" title={detail.playbook}>
                  {detail.playbook}
                </dd>
              </div>
              <div className="flex justify-between gap-4 px-4 py-2">
                <dt className="text-zinc-500">Fields</dt>
                <dd className="text-zinc-800 tabular-nums">{detail.fields.length}</dd>
              </div>
            </dl>
          </Panel>
        </div>
      </div>
    </>
  );
}
