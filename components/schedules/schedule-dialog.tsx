"use client";

import Link from "next/link";
import { useState, type ReactNode } from "react";
import { ApiError, errorMessage } from "@/components/api/client";
import type { Schedule } from "@/components/api/types";
import { useCreateSchedule } from "@/components/hooks/use-schedules";
import { Button } from "@/components/ui/button";
import { formatDateTime } from "@/components/ui/format";
import { TextField } from "@/components/ui/field";

/**
 * The form page's "Schedule…": saves the current draft's values and run options as a schedule
 * (POST /api/schedules). The server checks the values as a launch would; a problem with a
 * value is shown here by its path, as is a bad cron or time zone.
 */
export function ScheduleButton({
  form,
  values,
  options,
}: {
  form: string;
  values: Record<string, unknown>;
  options: Record<string, unknown>;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button onClick={() => setOpen(true)} data-testid="schedule-button">
        Schedule…
      </Button>
      {open && <ScheduleDialog form={form} values={values} options={options} onClose={() => setOpen(false)} />}
    </>
  );
}

export interface ScheduleTiming {
  cron: string;
  timezone: string;
  overlap: "skip" | "queue";
  mode: "run" | "drift";
}

/** When a schedule runs: its cron, time zone and what a tick does while the last run is busy. Shared by "Schedule…" and Edit. */
export function ScheduleTimingFields({
  timing,
  onChange,
  fields,
}: {
  timing: ScheduleTiming;
  onChange: (timing: ScheduleTiming) => void;
  /** The API's errors by field (cron, timezone). */
  fields: Record<string, string>;
}) {
  return (
    <>
      <TextField
        label="Cron"
        value={timing.cron}
        onChange={(e) => onChange({ ...timing, cron: e.target.value })}
        error={fields.cron}
        data-testid="schedule-cron-input"
      />
      <TextField
        label="Time zone"
        value={timing.timezone}
        onChange={(e) => onChange({ ...timing, timezone: e.target.value })}
        error={fields.timezone}
        data-testid="schedule-timezone-input"
      />
      <label className="flex items-center gap-2 text-sm text-zinc-800">
        <input
          type="checkbox"
          checked={timing.overlap === "queue"}
          onChange={(e) => onChange({ ...timing, overlap: e.target.checked ? "queue" : "skip" })}
        />
        Launch even while the previous run still waits or runs
      </label>
      <label className="flex items-start gap-2 text-sm text-zinc-800">
        <input
          type="checkbox"
          className="mt-1"
          checked={timing.mode === "drift"}
          onChange={(e) => onChange({ ...timing, mode: e.target.checked ? "drift" : "run" })}
          data-testid="schedule-drift-input"
        />
        <span>Drift check: run in check mode with diffs, changing nothing, and mark the hosts it would change as drifted (Hosts page)</span>
      </label>
    </>
  );
}

/** Whether every field an error names is one the timing fields show under themselves (cron, timezone). */
export function shownAtFields(fields: Record<string, string>): boolean {
  const names = Object.keys(fields);
  return names.length > 0 && names.every((name) => name === "cron" || name === "timezone");
}

/** A modal box with a title, for the schedule dialogs. */
export function ScheduleModal({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="fixed inset-0 z-30 grid place-items-center bg-zinc-900/30 p-4" role="dialog" aria-modal="true" aria-label={label}>
      <div className="w-full max-w-md space-y-4 rounded-lg bg-white p-5 shadow-lg" data-testid="schedule-dialog">
        <h2 className="text-base font-semibold text-zinc-900">{label}</h2>
        {children}
      </div>
    </div>
  );
}

function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

function ScheduleDialog({
  form,
  values,
  options,
  onClose,
}: {
  form: string;
  values: Record<string, unknown>;
  options: Record<string, unknown>;
  onClose: () => void;
}) {
  const create = useCreateSchedule();
  const [timing, setTiming] = useState<ScheduleTiming>(() => ({
    cron: "0 6 * * *",
    timezone: browserTimeZone(),
    overlap: "skip",
    mode: "run",
  }));
  const [saved, setSaved] = useState<Schedule | null>(null);
  const fields = create.error instanceof ApiError ? (create.error.fields ?? {}) : {};

  const save = () => create.mutate({ form, values, options, ...timing }, { onSuccess: setSaved });

  return (
    <ScheduleModal label={`Schedule ${form}`}>
      {saved ? (
        <>
          <p className="text-sm text-zinc-700">
            Saved as schedule #{saved.id}. Next runs: {saved.nextRuns.map((at) => formatDateTime(at)).join(" · ") || "none (paused)"}.
          </p>
          <div className="flex gap-2">
            <Link href="/schedules" className="text-sm text-indigo-600 hover:underline">
              See schedules
            </Link>
            <Button className="ml-auto" onClick={onClose}>
              Close
            </Button>
          </div>
        </>
      ) : (
        <>
          <p className="text-xs text-zinc-600">
            The values now in the form, launched as you at each tick. Cron: 5 fields (minute hour day month weekday), or 6 with seconds
            first.
          </p>
          <ScheduleTimingFields timing={timing} onChange={setTiming} fields={fields} />
          {/* Once, not twice: what the timing fields show under themselves is not repeated here. */}
          {create.isError && !shownAtFields(fields) && (
            <p className="text-sm text-red-700" data-testid="schedule-error">
              {errorMessage(create.error)}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              Cancel
            </Button>
            <Button variant="primary" disabled={create.isPending} onClick={save} data-testid="schedule-save">
              {create.isPending ? "Saving…" : "Save schedule"}
            </Button>
          </div>
        </>
      )}
    </ScheduleModal>
  );
}
