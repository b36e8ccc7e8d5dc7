import type { ReactNode } from "react";
import { Panel } from "@/components/ui/panel";

function show(value: unknown): ReactNode {
  if (value === null || value === undefined || value === "") return <span className="text-zinc-400">empty</span>;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string" || typeof value === "number") return String(value);
  return JSON.stringify(value);
}

const OPTION_LABELS: Record<string, string> = { check: "check mode", diff: "diff", limit: "limit", tags: "tags", verbosity: "verbosity" };

/**
 * The values the job was launched with (the server masks password fields), and the run
 * options chosen at launch, if any (check mode first: a dry run must be obvious).
 */
export function JobValues({ values, runOptions = {} }: { values: Record<string, unknown>; runOptions?: Record<string, unknown> }) {
  const entries = Object.entries(values);
  const options = Object.entries(runOptions).filter(([, value]) => !(Array.isArray(value) && value.length === 0));
  return (
    <Panel title="Launch values" bodyClassName="p-0">
      {runOptions.check === true && (
        <p className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-xs font-medium text-amber-900" data-testid="check-mode">
          Check mode: a dry run, nothing was changed on the hosts.
        </p>
      )}
      {entries.length === 0 ? (
        <p className="px-4 py-3 text-sm text-zinc-500">Launched without values.</p>
      ) : (
        <dl className="divide-y divide-zinc-100 text-sm" data-testid="job-values">
          {entries.map(([name, value]) => (
            <div key={name} className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-4 px-4 py-2">
              <dt className="truncate font-mono text-xs text-zinc-500" title={name}>
                {name}
              </dt>
              <dd className="font-mono text-xs break-words whitespace-pre-wrap text-zinc-900">{show(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      {options.length > 0 && (
        <dl className="divide-y divide-zinc-100 border-t border-zinc-200 text-sm" data-testid="job-run-options">
          {options.map(([name, value]) => (
            <div key={name} className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-4 px-4 py-2">
              <dt className="truncate text-xs text-zinc-500">{OPTION_LABELS[name] ?? name}</dt>
              <dd className="font-mono text-xs break-words text-zinc-900">{show(Array.isArray(value) ? value.join(", ") : value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </Panel>
  );
}
