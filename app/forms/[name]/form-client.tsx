"use client";

import Link from "next/link";
import { ApiError } from "@/components/api/client";
import { FormIdempotencePanel } from "@/components/forms/form-idempotence";
import { FormTrendPanel } from "@/components/forms/form-trend";
import { LaunchForm } from "@/components/forms/launch-form";
import { RecentJobs } from "@/components/jobs/recent-jobs";
import { useForm } from "@/components/hooks/use-form";
import { Markdown } from "@/components/ui/markdown";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";

export function FormClient({ name }: { name: string }) {
  const form = useForm(name);
  const breadcrumb = (
    <Link href="/" className="hover:text-zinc-900">
      Forms
    </Link>
  );

  if (form.isPending) return <LoadingState label="Loading form…" />;
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
            <LaunchForm form={detail} />
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
          <RecentJobs form={detail.name} />
        </div>
      </div>
    </>
  );
}
