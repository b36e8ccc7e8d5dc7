"use client";

import Link from "next/link";
import { useState, type ReactNode } from "react";
import type { HostCounts, JobStatus, ReportJob, RunReport } from "@/components/api/types";
import { formReportUrl, useFormReport } from "@/components/hooks/use-form-report";
import { JobStatusBadge } from "@/components/jobs/job-status-badge";
import { cx } from "@/components/ui/cx";
import { formatDateTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";
import { ErrorState, LoadingState } from "@/components/ui/states";

function RunHead({ jobs }: { jobs: ReportJob[] }) {
  return (
    <>
      {jobs.map((job) => (
        <th key={job.id} scope="col" className="px-3 py-2 text-left font-mono text-xs font-medium whitespace-nowrap text-zinc-600">
          <Link href={`/jobs/${job.id}`} className="text-indigo-600 hover:underline">
            #{job.id}
          </Link>
        </th>
      ))}
    </>
  );
}

function seconds(value: number | null): string {
  return value === null ? "" : `${value} s`;
}

function TaskCell({ changed, sec }: { changed: boolean | null; sec: number | null }) {
  if (changed === null) {
    return (
      <td className="px-3 py-1.5 text-xs whitespace-nowrap text-zinc-400" data-cell="none">
        {sec === null ? "–" : seconds(sec)}
      </td>
    );
  }
  return (
    <td className="px-3 py-1.5 text-xs whitespace-nowrap" data-cell={changed ? "changed" : "ok"}>
      <span className={cx("rounded px-1.5 py-0.5 font-medium", changed ? "bg-amber-100 text-amber-900" : "text-emerald-700")}>
        {changed ? "changed" : "ok"}
      </span>{" "}
      <span className="font-mono text-zinc-500 tabular-nums">{seconds(sec)}</span>
    </td>
  );
}

function HostCell({ counts }: { counts: HostCounts | null }) {
  if (counts === null) return <td className="px-3 py-1.5 text-xs text-zinc-400">–</td>;
  const part = (label: keyof HostCounts, tone: string) => (
    <span className={cx(counts[label] > 0 ? tone : "text-zinc-400")}>
      {label} <span className="font-mono tabular-nums">{counts[label]}</span>
    </span>
  );
  return (
    <td className="px-3 py-1.5 text-xs whitespace-nowrap" data-cell="host">
      <span className="flex gap-2">
        {part("ok", "text-emerald-700")}
        {part("changed", "text-amber-700")}
        {part("failed", "font-semibold text-red-700")}
        {part("unreachable", "font-semibold text-red-700")}
      </span>
    </td>
  );
}

function Runs({ report }: { report: RunReport }) {
  const row = (label: string, cell: (job: ReportJob) => ReactNode) => (
    <tr>
      <th scope="row" className="px-3 py-1.5 text-left text-xs font-medium whitespace-nowrap text-zinc-500">
        {label}
      </th>
      {report.jobs.map((job) => (
        <td key={job.id} className="px-3 py-1.5 text-xs text-zinc-800">
          {cell(job)}
        </td>
      ))}
    </tr>
  );
  return (
    <Panel title="Runs" bodyClassName="overflow-x-auto p-0" data-testid="report-runs">
      <table className="min-w-full text-sm">
        <thead className="border-b border-zinc-200 bg-zinc-50">
          <tr>
            <th scope="col" />
            <RunHead jobs={report.jobs} />
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {row("Status", (job) => (
            <JobStatusBadge status={job.status as JobStatus} />
          ))}
          {row("Run", (job) => (
            <span className="font-mono">{job.run}</span>
          ))}
          {row("Finished", (job) => formatDateTime(job.finishedAt))}
          {row("Playbook time", (job) => (
            <span className="font-mono tabular-nums">{job.playbook_sec === null ? "–" : seconds(job.playbook_sec)}</span>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}

function Tasks({ report }: { report: RunReport }) {
  const [changedOnly, setChangedOnly] = useState(false);
  const tasks = changedOnly ? report.tasks.filter((t) => t.changed.some((c) => c === true)) : report.tasks;
  return (
    <Panel
      title={`Tasks (${report.tasks.length})`}
      bodyClassName="overflow-x-auto p-0"
      data-testid="report-tasks"
      actions={
        <label className="flex items-center gap-1.5 text-xs text-zinc-600">
          <input type="checkbox" checked={changedOnly} onChange={(e) => setChangedOnly(e.target.checked)} />
          Only tasks that changed in some run
        </label>
      }
    >
      {tasks.length === 0 ? (
        <p className="p-4 text-sm text-zinc-500">{changedOnly ? "No task changed in these runs." : "No task is known for these runs."}</p>
      ) : (
        <table className="min-w-full text-sm">
          <thead className="border-b border-zinc-200 bg-zinc-50">
            <tr>
              <th scope="col" className="px-3 py-2 text-left text-xs font-medium text-zinc-500">
                Play
              </th>
              <th scope="col" className="px-3 py-2 text-left text-xs font-medium text-zinc-500">
                Task
              </th>
              <RunHead jobs={report.jobs} />
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {tasks.map((t, index) => (
              <tr key={`${t.play ?? ""}\u0000${t.task}\u0000${index}`} data-task={t.task}>
                <td className="max-w-48 truncate px-3 py-1.5 text-xs text-zinc-500" title={t.play ?? undefined}>
                  {t.play ?? "–"}
                </td>
                <td className="max-w-96 px-3 py-1.5 text-xs break-words text-zinc-900">{t.task}</td>
                {t.changed.map((changed, i) => (
                  <TaskCell key={report.jobs[i]!.id} changed={changed} sec={t.sec[i] ?? null} />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function Hosts({ report }: { report: RunReport }) {
  return (
    <Panel title={`Hosts (${report.hosts.length})`} bodyClassName="overflow-x-auto p-0" data-testid="report-hosts">
      {report.hosts.length === 0 ? (
        <p className="p-4 text-sm text-zinc-500">No host is known for these runs.</p>
      ) : (
        <table className="min-w-full text-sm">
          <thead className="border-b border-zinc-200 bg-zinc-50">
            <tr>
              <th scope="col" className="px-3 py-2 text-left text-xs font-medium text-zinc-500">
                Host
              </th>
              <RunHead jobs={report.jobs} />
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {report.hosts.map((h) => (
              <tr key={h.host} data-host={h.host}>
                <td className="px-3 py-1.5 font-mono text-xs text-zinc-900">{h.host}</td>
                {h.runs.map((counts, i) => (
                  <HostCell key={report.jobs[i]!.id} counts={counts} />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function Artifacts({ report }: { report: RunReport }) {
  return (
    <Panel title={`Artifacts (${report.artifacts.length})`} bodyClassName="overflow-x-auto p-0" data-testid="report-artifacts">
      {report.artifacts.length === 0 ? (
        <p className="p-4 text-sm text-zinc-500">
          The playbook handed back nothing with <code className="font-mono">set_stats</code> in these runs.
        </p>
      ) : (
        <table className="min-w-full text-sm">
          <thead className="border-b border-zinc-200 bg-zinc-50">
            <tr>
              <th scope="col" className="px-3 py-2 text-left text-xs font-medium text-zinc-500">
                Key
              </th>
              <RunHead jobs={report.jobs} />
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {report.artifacts.map((a) => (
              <tr key={a.key} data-key={a.key}>
                <td className="px-3 py-1.5 font-mono text-xs text-zinc-500">{a.key}</td>
                {a.values.map((value, i) => (
                  <td key={report.jobs[i]!.id} className="max-w-72 px-3 py-1.5 align-top">
                    {value === null ? (
                      <span className="text-xs text-zinc-400">–</span>
                    ) : (
                      <pre className="max-h-32 overflow-auto font-mono text-xs break-words whitespace-pre-wrap text-zinc-900">
                        {typeof value === "string" ? value : JSON.stringify(value, null, 2)}
                      </pre>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

/** Runs of a form side by side, with the documents to download (Markdown for a ticket, CSV, JSON). */
export function FormReportClient({ name, jobs }: { name: string; jobs: string }) {
  // The list goes to the API as written: its 400 names what is wrong with it.
  const query = useFormReport(name, jobs);
  const eyebrow = (
    <>
      <Link href="/" className="hover:text-zinc-900">
        Forms
      </Link>{" "}
      /{" "}
      <Link href={`/forms/${encodeURIComponent(name)}`} className="hover:text-zinc-900">
        {name}
      </Link>
    </>
  );
  const downloads = (
    <div className="flex items-center gap-3 text-sm" data-testid="report-downloads">
      <span className="text-zinc-500">Download</span>
      {(["md", "csv", "json"] as const).map((format) => (
        <a key={format} href={formReportUrl(name, jobs, format)} download className="text-indigo-600 hover:underline">
          {format === "md" ? "Markdown" : format.toUpperCase()}
        </a>
      ))}
    </div>
  );
  return (
    <>
      <PageHeader
        eyebrow={eyebrow}
        title={query.data ? `Report over ${query.data.jobs.length} runs` : "Report"}
        description="Each run's tasks, hosts and handed-back results side by side, in the order picked."
        actions={query.data ? downloads : undefined}
      />
      {query.isPending ? (
        <LoadingState label="Loading the report…" />
      ) : query.isError ? (
        <ErrorState error={query.error} />
      ) : (
        <div className="space-y-6">
          <Runs report={query.data} />
          <Tasks report={query.data} />
          <Hosts report={query.data} />
          <Artifacts report={query.data} />
        </div>
      )}
    </>
  );
}
