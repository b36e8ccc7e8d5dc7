"use client";

import type { RunnerChoice } from "@/components/api/types";
import { Field } from "@/components/ui/field";

/** The runner a launch starts with: the first approved one of the form's choice (as the server picks). */
export function firstApprovedRunner(runners: RunnerChoice[] | null): string | null {
  return runners?.find((runner) => runner.status === "approved")?.name ?? null;
}

function stateOf(runner: RunnerChoice): string {
  if (runner.status !== "approved") return runner.status === "unknown" ? "not registered" : runner.status;
  return runner.connected ? "connected" : "not connected: jobs wait for it";
}

/**
 * The form's choice of runners (`runners:` in form.yaml), each with its state: only approved
 * ones take jobs; one that is not connected now is offered, its jobs wait in the queue.
 */
export function RunnerSelect({
  runners,
  value,
  onChange,
  error,
  disabled,
}: {
  runners: RunnerChoice[];
  value: string | null;
  onChange: (runner: string) => void;
  error?: string;
  disabled: boolean;
}) {
  return (
    <div className="mt-6 border-t border-zinc-200 pt-4">
      <Field look="option" label="Runner" className="w-96" error={error} help="Where the playbook runs. Only approved runners take jobs.">
        {(control) => (
          <select
            {...control}
            value={value ?? ""}
            disabled={disabled}
            onChange={(e) => onChange(e.target.value)}
            data-testid="runner-select"
          >
            {value === null && <option value="">no runner of this form is approved</option>}
            {runners.map((runner) => (
              <option key={runner.name} value={runner.name} disabled={runner.status !== "approved"}>
                {runner.name} ({stateOf(runner)})
              </option>
            ))}
          </select>
        )}
      </Field>
    </div>
  );
}
