"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { ABORTABLE_STATUSES, isFinalStatus, type Job } from "@/components/api/types";
import { useHydrated } from "@/components/hooks/use-hydrated";
import { useJobProgress } from "@/components/hooks/use-job-progress";
import { useNow } from "@/components/hooks/use-now";
import { ButtonLink } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { formatDateTime, formatDuration, formatWhen } from "@/components/ui/format";
import { useJobPermissions } from "@/components/hooks/use-job";
import { AbortButton } from "./abort-button";
import { JobProgressRow } from "./job-progress";
import { JobStatusBadge } from "./job-status-badge";

function Meta({ label, children, mono, title }: { label: string; children: ReactNode; mono?: boolean; title?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-[11px] font-semibold tracking-wide text-zinc-500 uppercase">{label}</dt>
      <dd className={cx("mt-0.5 truncate text-sm text-zinc-900 tabular-nums", mono && "font-mono text-[13px]")} title={title}>
        {children}
      </dd>
    </div>
  );
}

const muted = <span className="text-zinc-400">—</span>;
/** Until hydrated: the server knows neither the reader's clock nor their locale and time zone. */
const pending = <span className="text-zinc-300">…</span>;

export function JobHeader({ job }: { job: Job }) {
  const final = isFinalStatus(job.status);
  const running = job.status === "running";
  const now = useNow(running);
  // Times in the reader's locale and zone, and a running job's duration (up to now), only once
  // hydrated: the server's HTML cannot have them as the browser shows them (React #418).
  const hydrated = useHydrated();
  const progress = useJobProgress(job.id, running);
  const permissions = useJobPermissions(job.id);
  const exitTone = job.exitCode === null ? "" : job.exitCode === 0 ? "text-green-700" : "text-red-600";

  return (
    <div className="rounded-lg border border-zinc-200 bg-white shadow-xs">
      <div className="flex flex-wrap items-start justify-between gap-4 px-5 pt-4 pb-3">
        <div className="min-w-0">
          <div className="mb-1 text-xs text-zinc-500">
            <Link href="/jobs" className="hover:text-zinc-900">
              Jobs
            </Link>
            <span className="mx-1.5 text-zinc-300">/</span>#{job.id}
          </div>
          <h1 className="flex flex-wrap items-center gap-3 text-xl font-semibold tracking-tight text-zinc-900">
            <span className="truncate">{job.form}</span>
            <span className="font-mono text-base font-normal text-zinc-400">#{job.id}</span>
            <JobStatusBadge status={job.status} size="md" testId="job-status" />
          </h1>
          {job.relaunchOf !== null && (
            <p className="mt-1 text-sm text-zinc-600" data-testid="job-relaunch-of">
              Repeats{" "}
              <Link href={`/jobs/${job.relaunchOf}`} className="text-indigo-600 hover:underline">
                job #{job.relaunchOf}
              </Link>
            </p>
          )}
          {job.launchedBy !== null && (
            <p className="mt-1 text-sm text-zinc-600" data-testid="job-launched-by">
              Launched by{" "}
              <Link href="/schedules" className="text-indigo-600 hover:underline">
                schedule #{job.launchedBy.schedule}
              </Link>
              {job.drift && " as a drift check: check mode with diffs; the hosts it finds changes on are marked drifted"}
            </p>
          )}
          {job.statusReason && (
            <p
              className={cx("mt-1.5 text-sm", job.status === "failed" || job.status === "abandoned" ? "text-red-700" : "text-zinc-600")}
              data-testid="job-status-reason"
            >
              {job.statusReason}
            </p>
          )}
        </div>
        <div className="flex shrink-0 items-center gap-2">
          {ABORTABLE_STATUSES.includes(job.status) && <AbortButton job={job} />}
          {/* The form opens with this job's values and options (secrets left empty): server/jobs/relaunch.ts. */}
          {final && permissions.data?.relaunch && (
            <ButtonLink href={`/forms/${encodeURIComponent(job.form)}?from=${job.id}`} variant="secondary" data-testid="run-again">
              Run again
            </ButtonLink>
          )}
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-3 border-t border-zinc-100 px-5 py-3 sm:grid-cols-4 lg:grid-cols-7">
        <Meta label="Exit code" mono>
          {job.exitCode === null ? (
            muted
          ) : (
            <span className={exitTone} data-testid="job-exit-code">
              {job.exitCode}
            </span>
          )}
        </Meta>
        <Meta label="Runner" mono>
          {job.runner ?? muted}
        </Meta>
        {/* Where it was dispatched to run (form.yaml environment:), with the versions its runner reported. */}
        {job.environment && (
          <Meta label="Environment" mono title={environmentVersions(job.environment) ?? "versions not reported by the runner"}>
            <span data-testid="job-environment">{job.environment.name}</span>
            {environmentVersions(job.environment) && (
              <span className="block text-xs font-normal text-zinc-500">{environmentVersions(job.environment)}</span>
            )}
          </Meta>
        )}
        <Meta label="Launched by">{job.user}</Meta>
        {job.source && (
          <Meta label="Source" mono title={`Git source ${job.source.name}, commit ${job.source.commit}`}>
            <span data-testid="job-source">
              {job.source.name}@{job.source.commit.slice(0, 7)}
            </span>
          </Meta>
        )}
        <Meta label="Created" title={hydrated ? formatDateTime(job.createdAt) : undefined}>
          {hydrated ? formatWhen(job.createdAt) : pending}
        </Meta>
        <Meta label="Started" title={hydrated && job.startedAt ? formatDateTime(job.startedAt) : undefined}>
          {job.startedAt ? (hydrated ? formatWhen(job.startedAt) : pending) : muted}
        </Meta>
        <Meta label="Finished" title={hydrated && job.finishedAt ? formatDateTime(job.finishedAt) : undefined}>
          {job.finishedAt ? (hydrated ? formatWhen(job.finishedAt) : pending) : muted}
        </Meta>
        <Meta
          label="Duration (launch to end)"
          title="Job wall time, from the runner starting the job to its end: includes setup before the playbook's first play (see Playbook elapsed in the recap)"
        >
          <span className="tabular-nums" data-testid="job-duration">
            {job.startedAt && !job.finishedAt && !hydrated ? pending : formatDuration(job.startedAt, job.finishedAt, now)}
          </span>
        </Meta>
      </dl>
      {running && <JobProgressRow progress={progress.data} ageSec={progress.dataUpdatedAt ? (now - progress.dataUpdatedAt) / 1000 : 0} />}
    </div>
  );
}

/** "ansible-core 2.19.4, Python 3.13.5", or null when the runner reported neither. */
function environmentVersions(environment: { ansibleCore: string | null; python: string | null }): string | null {
  const parts = [
    environment.ansibleCore && `ansible-core ${environment.ansibleCore}`,
    environment.python && `Python ${environment.python.split(" ")[0]}`,
  ];
  const shown = parts.filter((part): part is string => Boolean(part));
  return shown.length > 0 ? shown.join(", ") : null;
}
