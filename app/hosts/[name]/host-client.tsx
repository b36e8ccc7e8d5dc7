"use client";

import Link from "next/link";
import type { HostDetailDrift, HostRunView } from "@/components/api/types";
import { HostResultCounts } from "@/components/hosts/host-result";
import { useHost } from "@/components/hooks/use-hosts";
import { JobStatusBadge } from "@/components/jobs/job-status-badge";
import { Button } from "@/components/ui/button";
import { formatDateTime } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";
import { ErrorState, LoadingState } from "@/components/ui/states";

/** How the run was run, in a few words: what sets it apart from a plain full run. */
function describeRun(options: HostRunView["options"]): string {
  if (!options) return "";
  const parts: string[] = [];
  if (options.check) parts.push("check mode");
  if (options.diff) parts.push("diff");
  if (options.tags.length > 0) parts.push(`tags ${options.tags.join(", ")}`);
  if (options.skipTags.length > 0) parts.push(`skip ${options.skipTags.join(", ")}`);
  if (options.limit) parts.push(`limit ${options.limit}`);
  if (options.environment && options.environment !== "default") parts.push(`environment ${options.environment}`);
  return parts.length > 0 ? parts.join(" · ") : "full run";
}

function RunRow({ run }: { run: HostRunView }) {
  return (
    <li className="px-4 py-3" data-testid="host-run" data-job={run.jobId}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
        <span className="text-xs whitespace-nowrap text-zinc-500 tabular-nums">{formatDateTime(run.finishedAt)}</span>
        <Link href={`/jobs/${run.jobId}`} className="font-mono text-indigo-600 hover:underline">
          #{run.jobId}
        </Link>
        <span className="text-zinc-800">{run.form}</span>
        <JobStatusBadge status={run.status} />
        <span className="text-xs text-zinc-500">{describeRun(run.options)}</span>
        <span className="ml-auto">
          <HostResultCounts result={run.result} />
        </span>
      </div>
      {run.changedTasks.length > 0 && (
        <div className="mt-1.5 flex flex-wrap items-baseline gap-x-2 gap-y-1 text-xs">
          <span className="text-zinc-500">Changed:</span>
          {run.changedTasks.map((task, i) => {
            const line = run.changedTaskLines[i] ?? null;
            return line === null ? (
              <span key={task} className="rounded bg-amber-50 px-1.5 py-0.5 text-amber-900">
                {task}
              </span>
            ) : (
              <Link
                key={task}
                href={`/jobs/${run.jobId}#L${line}`}
                className="rounded bg-amber-50 px-1.5 py-0.5 text-amber-900 hover:underline"
                data-testid="host-run-task"
              >
                {task}
              </Link>
            );
          })}
        </div>
      )}
    </li>
  );
}

/** What the newest drift check found would change on the host, with the diff lines --diff printed. */
function DriftPanel({ drift }: { drift: HostDetailDrift }) {
  const others = drift.forms.filter((form) => form !== drift.form);
  return (
    <section className="mb-4 rounded-lg border border-orange-200 bg-orange-50 p-4" data-testid="host-drift">
      <h2 className="text-sm font-semibold text-orange-950">Drifted since {formatDateTime(drift.since)}</h2>
      <p className="mt-1 text-sm text-orange-900">
        The drift check{" "}
        <Link href={`/jobs/${drift.jobId}`} className="font-mono text-indigo-700 hover:underline">
          #{drift.jobId}
        </Link>{" "}
        of {drift.form} (check mode, with diffs) found {drift.tasks.length === 1 ? "a task" : `${drift.tasks.length} tasks`} that would
        change this host. The mark goes at the next check that finds none.
        {others.length > 0 && ` Checks of ${others.join(", ")} find it drifted too.`}
      </p>
      <ul className="mt-3 space-y-2">
        {drift.tasks.map((task) => (
          <li key={task.task} data-testid="host-drift-task">
            <p className="text-sm font-medium text-zinc-900">{task.task}</p>
            {task.diff === null ? (
              <p className="text-xs text-zinc-600">It printed no diff (a module without diff support): see the job's output.</p>
            ) : (
              <pre className="mt-1 max-h-80 overflow-auto rounded border border-orange-200 bg-white p-2 font-mono text-xs leading-5">
                {task.diff.split("\n").map((line, i) => (
                  <span
                    key={i}
                    className={
                      line.startsWith("+") && !line.startsWith("+++")
                        ? "block bg-green-50 text-green-900"
                        : line.startsWith("-") && !line.startsWith("---")
                          ? "block bg-red-50 text-red-900"
                          : "block text-zinc-700"
                    }
                  >
                    {line || "\u00a0"}
                  </span>
                ))}
              </pre>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A host's runs over time, newest first: each run's result on the host and the tasks that changed it, linked to their output. */
export function HostClient({ name }: { name: string }) {
  const query = useHost(name);
  const pages = query.data?.pages ?? [];
  const host = pages[0]?.host;
  const runs = pages.flatMap((page) => page.runs);
  const eyebrow = (
    <Link href="/hosts" className="hover:text-zinc-900">
      Hosts
    </Link>
  );
  return (
    <>
      <PageHeader
        eyebrow={eyebrow}
        title={<span className="font-mono">{name}</span>}
        description="Its runs you can see, newest first: what each did to this host, and the tasks that changed it (each opens its place in the job's output)."
      />
      {query.isPending ? (
        <LoadingState label="Loading the host's runs…" />
      ) : query.isError ? (
        <ErrorState error={query.error} />
      ) : (
        <>
          {host?.drift && <DriftPanel drift={host.drift} />}
          {host && (
            <p className="mb-3 text-sm text-zinc-600" data-testid="host-latest">
              Newest run{" "}
              <Link href={`/jobs/${host.lastJob.id}`} className="font-mono text-indigo-600 hover:underline">
                #{host.lastJob.id}
              </Link>{" "}
              ({host.lastJob.form}, {formatDateTime(host.lastJob.finishedAt)}).
            </p>
          )}
          <Panel title={`Runs${query.hasNextPage ? "" : ` (${runs.length})`}`} bodyClassName="p-0">
            <ol className="divide-y divide-zinc-100" data-testid="host-runs">
              {runs.map((run) => (
                <RunRow key={run.jobId} run={run} />
              ))}
            </ol>
          </Panel>
          {query.hasNextPage && (
            <div className="mt-3">
              <Button onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage} data-testid="host-runs-more">
                {query.isFetchingNextPage ? "Loading…" : "Older runs"}
              </Button>
            </div>
          )}
        </>
      )}
    </>
  );
}
