"use client";

import Link from "next/link";
import { useState } from "react";
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
  const [cron, setCron] = useState("0 6 * * *");
  const [timezone, setTimezone] = useState(browserTimeZone);
  const [overlap, setOverlap] = useState<"skip" | "queue">("skip");
  const [saved, setSaved] = useState<Schedule | null>(null);
  const fields = create.error instanceof ApiError ? (create.error.fields ?? {}) : {};

  const save = () => create.mutate({ form, values, options, cron, timezone, overlap }, { onSuccess: setSaved });

  return (
    <div
      className="fixed inset-0 z-30 grid place-items-center bg-zinc-900/30 p-4"
      role="dialog"
      aria-modal="true"
      aria-label="Schedule this form"
    >
      <div className="w-full max-w-md space-y-4 rounded-lg bg-white p-5 shadow-lg" data-testid="schedule-dialog">
        <h2 className="text-base font-semibold text-zinc-900">Schedule {form}</h2>
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
            <TextField
              label="Cron"
              value={cron}
              onChange={(e) => setCron(e.target.value)}
              error={fields.cron}
              data-testid="schedule-cron-input"
            />
            <TextField label="Time zone" value={timezone} onChange={(e) => setTimezone(e.target.value)} error={fields.timezone} />
            <label className="flex items-center gap-2 text-sm text-zinc-800">
              <input type="checkbox" checked={overlap === "queue"} onChange={(e) => setOverlap(e.target.checked ? "queue" : "skip")} />
              Launch even while the previous run still waits or runs
            </label>
            {create.isError && (
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
      </div>
    </div>
  );
}
