"use client";

import { useJobArtifacts } from "@/components/hooks/use-job-artifacts";
import { Panel } from "@/components/ui/panel";

/** A value as the playbook set it: text as is, anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

function Values({ data, testId }: { data: Record<string, unknown>; testId: string }) {
  return (
    <dl className="grid grid-cols-[minmax(8rem,max-content)_1fr] gap-x-4 gap-y-1.5 text-sm" data-testid={testId}>
      {Object.entries(data).map(([key, value]) => (
        <div key={key} className="contents" data-key={key}>
          <dt className="font-mono text-xs text-zinc-500">{key}</dt>
          <dd className="max-h-48 overflow-auto font-mono text-xs break-words whitespace-pre-wrap text-zinc-900">{shown(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * "Results": what the playbook handed back with `set_stats` (the job's artifacts), the run's and
 * each host's. Shown only when it set some, or when they were refused (over the 1 MiB cap).
 */
export function JobArtifactsPanel({ jobId }: { jobId: number }) {
  const query = useJobArtifacts(jobId, true);
  if (!query.data) return null;
  const { artifacts, hosts, error } = query.data;
  const hostNames = Object.keys(hosts).sort();
  if (Object.keys(artifacts).length === 0 && hostNames.length === 0 && error === null) return null;
  return (
    <Panel title="Results" data-testid="job-artifacts">
      <div className="space-y-4">
        <p className="text-xs text-zinc-500">
          What the playbook handed back with <code className="font-mono">set_stats</code> (masked like its output).
        </p>
        {error && (
          <p className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="job-artifacts-error">
            {error}
          </p>
        )}
        {Object.keys(artifacts).length > 0 && <Values data={artifacts} testId="job-artifacts-run" />}
        {hostNames.map((host) => (
          <div key={host}>
            <h3 className="mb-1.5 text-xs font-semibold text-zinc-700">
              Host <span className="font-mono">{host}</span>
            </h3>
            <Values data={hosts[host]!} testId={`job-artifacts-host-${host}`} />
          </div>
        ))}
      </div>
    </Panel>
  );
}
