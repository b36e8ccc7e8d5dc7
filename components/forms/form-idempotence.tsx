"use client";

import Link from "next/link";
import type { FormIdempotence, IdempotenceHost, IdempotenceTask } from "@/components/api/types";
import { formIdempotenceUrl, useFormIdempotence } from "@/components/hooks/use-form-idempotence";
import { DataTable, type Column } from "@/components/ui/data-table";
import { formatDateTime } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";

const LAST_RUNS = 20;
/** Hosts shown in a row; the others are counted ("+3 more") and listed in the tooltip. */
const HOSTS_SHOWN = 4;

function RunLink({ run, testId }: { run: IdempotenceTask["first_changed_run"]; testId: string }) {
  return (
    <Link
      href={`/jobs/${run.id}`}
      className="font-mono text-xs text-indigo-600 hover:underline"
      title={run.finished_at ? `finished ${formatDateTime(run.finished_at)}` : undefined}
      data-testid={testId}
    >
      #{run.id}
    </Link>
  );
}

function hostLabel(h: IdempotenceHost): string {
  return `${h.host} (${h.runs_changed})`;
}

function Hosts({ task }: { task: IdempotenceTask }) {
  if (task.hosts === null) return <span className="text-xs text-zinc-400">not known (runs without events)</span>;
  const shown = task.hosts.slice(0, HOSTS_SHOWN);
  const more = task.hosts.length - shown.length;
  return (
    <span className="flex flex-wrap gap-1" title={task.hosts.map(hostLabel).join(", ")}>
      {shown.map((h) => (
        <span key={h.host} className="rounded bg-zinc-100 px-1.5 font-mono text-[11px] text-zinc-700" data-host={h.host}>
          {h.host}
          <span className="ml-1 text-zinc-400 tabular-nums">×{h.runs_changed}</span>
        </span>
      ))}
      {more > 0 && <span className="text-[11px] text-zinc-500">+{more} more</span>}
      {task.hosts_unknown_runs > 0 && (
        <span className="text-[11px] text-zinc-400">+ {task.hosts_unknown_runs} run(s) without host detail</span>
      )}
    </span>
  );
}

const COLUMNS: Column<IdempotenceTask>[] = [
  {
    key: "task",
    header: "Task",
    rowHeader: true,
    className: "text-left font-normal",
    cell: (t) => (
      <span className="block min-w-0">
        <span className="block text-xs break-words text-zinc-800">{t.task}</span>
        {t.play !== null && (
          <span className="block text-[11px] text-zinc-400">
            play {t.play || "(unnamed)"}
            {t.play_occurrence !== null && t.play_occurrence > 1 ? ` (#${t.play_occurrence} of that name)` : ""}
          </span>
        )}
      </span>
    ),
  },
  {
    key: "changed",
    header: "Changed",
    cellProps: (t) => ({ "data-runs-changed": t.runs_changed, "data-runs-ran": t.runs_ran }),
    cell: (t) => (
      <span className="block w-36">
        <span className="flex items-baseline justify-between gap-2 text-xs">
          <span className="text-zinc-700 tabular-nums">
            in {t.runs_changed} of {t.runs_ran} runs
          </span>
          <span className="text-zinc-400 tabular-nums">{Math.round(t.change_rate * 100)}%</span>
        </span>
        <span className="mt-0.5 block h-1.5 rounded-full bg-zinc-100">
          <span className="block h-1.5 rounded-full bg-amber-500" style={{ width: `${Math.max(3, t.change_rate * 100)}%` }} />
        </span>
      </span>
    ),
  },
  { key: "hosts", header: "Hosts", cell: (t) => <Hosts task={t} /> },
  { key: "first", header: "First", cell: (t) => <RunLink run={t.first_changed_run} testId="idempotence-first" /> },
  {
    key: "last",
    header: "Last",
    cell: (t) => (
      <span className="flex items-center gap-1.5">
        <RunLink run={t.last_changed_run} testId="idempotence-last" />
        {t.changed_in_latest && (
          <span className="rounded bg-amber-50 px-1 text-[10px] font-medium text-amber-700" title="Changed in the latest complete run">
            latest
          </span>
        )}
      </span>
    ),
  },
];

function Body({ report }: { report: FormIdempotence }) {
  const skipped = (
    <>
      {report.skipped_incomplete > 0 && (
        <p className="px-4 pt-3 text-[11px] text-zinc-500">
          {report.skipped_incomplete} incomplete run(s) skipped: a run that stopped before its PLAY RECAP says nothing about idempotence.
        </p>
      )}
      {report.environments.length > 0 && (
        <p
          className="mx-4 mt-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900"
          data-testid="idempotence-environments"
        >
          These runs ran in {report.environments.length} environments ({report.environments.join(", ")}): a task may have changed because
          another ansible-core or collection ran it, not because it is not idempotent.
        </p>
      )}
    </>
  );
  if (report.complete_runs < 2) {
    return (
      <>
        {skipped}
        <p className="p-4 text-sm text-zinc-500" data-testid="idempotence-needs-runs">
          Needs two complete runs (runs that reached their PLAY RECAP): {report.complete_runs} so far. A first run legitimately changes
          things; the second says what changes again.
        </p>
      </>
    );
  }
  if (report.tasks.length === 0) {
    return (
      <>
        {skipped}
        <p className="p-4 text-sm text-zinc-500">No task changed in any of the {report.complete_runs} complete runs.</p>
      </>
    );
  }
  return (
    <>
      {skipped}
      <p className="px-4 pt-3 pb-2 text-[11px] text-zinc-500">
        Worst offenders first: the tasks that changed in the most runs.
        {report.tasks_never_changed > 0 && ` ${report.tasks_never_changed} other task(s) never changed.`}
      </p>
      <DataTable
        rows={report.tasks}
        columns={COLUMNS}
        look="dense"
        testId="idempotence-table"
        row={(t) => ({
          key: `${t.play ?? ""}\u0000${t.play_occurrence ?? 0}\u0000${t.task}`,
          "data-task": t.task,
        })}
      />
    </>
  );
}

/** Per task of a form, how often it changed over its last runs: the idempotence offenders to fix first. */
export function FormIdempotencePanel({ form }: { form: string }) {
  const report = useFormIdempotence(form, LAST_RUNS);
  const runs = report.data?.complete_runs ?? 0;
  return (
    <Panel
      title={`Idempotence across the last ${runs > 0 ? `${runs} ` : ""}runs`}
      data-testid="form-idempotence"
      bodyClassName="p-0"
      actions={
        report.data &&
        report.data.tasks.length > 0 && (
          <span className="flex gap-3 text-xs">
            <a href={formIdempotenceUrl(form, LAST_RUNS, "csv")} download className="text-indigo-600 hover:underline">
              Export CSV
            </a>
            <a href={formIdempotenceUrl(form, LAST_RUNS, "json")} download className="text-indigo-600 hover:underline">
              Export JSON
            </a>
          </span>
        )
      }
    >
      {report.isPending ? (
        <p className="p-4 text-sm text-zinc-500">Loading…</p>
      ) : report.isError ? (
        <p className="p-4 text-sm text-red-700">Could not load the idempotence report.</p>
      ) : (
        <Body report={report.data} />
      )}
    </Panel>
  );
}
