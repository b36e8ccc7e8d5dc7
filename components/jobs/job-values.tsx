import type { ReactNode } from "react";
import { Panel } from "@/components/ui/panel";

function show(value: unknown): ReactNode {
  if (value === null || value === undefined || value === "") return <span className="text-zinc-400">empty</span>;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string" || typeof value === "number") return String(value);
  return JSON.stringify(value);
}

/** The values the job was launched with (the server masks password fields). */
export function JobValues({ values }: { values: Record<string, unknown> }) {
  const entries = Object.entries(values);
  return (
    <Panel title="Launch values" bodyClassName="p-0">
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
    </Panel>
  );
}
