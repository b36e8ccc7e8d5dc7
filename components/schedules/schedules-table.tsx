"use client";

import Link from "next/link";
import { useState } from "react";
import { ApiError, errorMessage } from "@/components/api/client";
import type { Schedule } from "@/components/api/types";
import { useScheduleChange, useUpdateScheduleTiming } from "@/components/hooks/use-schedules";
import { Button } from "@/components/ui/button";
import { formatDateTime } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";
import { EmptyState } from "@/components/ui/states";
import { ScheduleModal, ScheduleTimingFields, shownAtFields, type ScheduleTiming } from "./schedule-dialog";

/** The schedules: what runs when, the last job, why one is paused; edit when it runs, enable, pause, delete. */
export function SchedulesTable({ schedules, showOwner }: { schedules: Schedule[]; showOwner: boolean }) {
  if (schedules.length === 0) {
    return (
      <EmptyState title="No schedules yet">
        Open a form, fill it in and choose <strong>Schedule…</strong> to launch it on a cron.
      </EmptyState>
    );
  }
  return (
    <Panel title="Schedules" bodyClassName="p-0">
      <ul className="divide-y divide-zinc-100" data-testid="schedules">
        {schedules.map((schedule) => (
          <ScheduleRow key={schedule.id} schedule={schedule} showOwner={showOwner} />
        ))}
      </ul>
    </Panel>
  );
}

function ScheduleRow({ schedule, showOwner }: { schedule: Schedule; showOwner: boolean }) {
  const change = useScheduleChange();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [editing, setEditing] = useState(false);
  return (
    <li className="flex flex-wrap items-start justify-between gap-4 px-4 py-3" data-testid={`schedule-${schedule.id}`}>
      <div className="min-w-0 space-y-1 text-sm">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-mono text-zinc-400">#{schedule.id}</span>
          <Link href={`/forms/${encodeURIComponent(schedule.form)}`} className="font-semibold text-zinc-900 hover:underline">
            {schedule.form}
          </Link>
          <code className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-800" data-testid="schedule-cron">
            {schedule.cron}
          </code>
          <span className="text-xs text-zinc-500">{schedule.timezone}</span>
          <span className="text-xs text-zinc-500">{schedule.overlap === "queue" ? "queues while busy" : "skips while busy"}</span>
          {schedule.mode === "drift" && (
            <span className="rounded bg-orange-100 px-1.5 py-0.5 text-xs text-orange-900" data-testid="schedule-drift">
              drift check
            </span>
          )}
          {showOwner && schedule.owner && <span className="text-xs text-zinc-500">by {schedule.owner}</span>}
          {!schedule.enabled && <span className="rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-800">paused</span>}
        </div>
        {schedule.pausedReason && (
          <p className="text-xs text-red-700" data-testid="schedule-paused-reason">
            Paused by Playform: {schedule.pausedReason}
          </p>
        )}
        {schedule.nextRuns.length > 0 && (
          <p className="text-xs text-zinc-600" data-testid="schedule-next-runs">
            Next: {schedule.nextRuns.map((at) => formatDateTime(at)).join(" · ")}
          </p>
        )}
        <p className="text-xs text-zinc-600">
          Last job:{" "}
          {schedule.lastJobId === null ? (
            "none yet"
          ) : (
            <Link href={`/jobs/${schedule.lastJobId}`} className="text-indigo-600 hover:underline" data-testid="schedule-last-job">
              #{schedule.lastJobId}
            </Link>
          )}
          {schedule.lastRunAt && <span className="text-zinc-500"> ({formatDateTime(schedule.lastRunAt)})</span>}
        </p>
        {change.isError && <p className="text-xs text-red-700">{errorMessage(change.error)}</p>}
      </div>
      <div className="flex shrink-0 items-center gap-2">
        <Button variant="secondary" onClick={() => setEditing(true)} data-testid="schedule-edit">
          Edit
        </Button>
        {editing && <EditTimingDialog schedule={schedule} onClose={() => setEditing(false)} />}
        <Button
          variant="secondary"
          disabled={change.isPending}
          onClick={() => change.mutate({ kind: "enable", id: schedule.id, enabled: !schedule.enabled })}
          data-testid="schedule-toggle"
        >
          {schedule.enabled ? "Pause" : "Enable"}
        </Button>
        {confirmDelete ? (
          <>
            <span className="text-xs text-zinc-600">Delete schedule #{schedule.id}?</span>
            <Button variant="dangerSolid" disabled={change.isPending} onClick={() => change.mutate({ kind: "delete", id: schedule.id })}>
              Delete
            </Button>
            <Button variant="secondary" onClick={() => setConfirmDelete(false)}>
              Keep
            </Button>
          </>
        ) : (
          <Button variant="danger" onClick={() => setConfirmDelete(true)} data-testid="schedule-delete">
            Delete
          </Button>
        )}
      </div>
    </li>
  );
}

/**
 * Edit: when and how the schedule runs (cron, time zone, overlap, drift check or run). The values it launches with are the
 * ones saved from the form page; to change those, schedule the form again and delete this one.
 */
function EditTimingDialog({ schedule, onClose }: { schedule: Schedule; onClose: () => void }) {
  const update = useUpdateScheduleTiming(schedule.id);
  const [timing, setTiming] = useState<ScheduleTiming>({
    cron: schedule.cron,
    timezone: schedule.timezone,
    overlap: schedule.overlap,
    mode: schedule.mode,
  });
  const fields = update.error instanceof ApiError ? (update.error.fields ?? {}) : {};
  return (
    <ScheduleModal label={`Edit schedule #${schedule.id} (${schedule.form})`}>
      <p className="text-xs text-zinc-600">
        Cron: 5 fields (minute hour day month weekday), or 6 with seconds first. The values it launches with stay as saved from the form.
      </p>
      <ScheduleTimingFields timing={timing} onChange={setTiming} fields={fields} />
      {/* Once, not twice: what the timing fields show under themselves is not repeated here. */}
      {update.isError && !shownAtFields(fields) && (
        <p className="text-sm text-red-700" data-testid="schedule-error">
          {errorMessage(update.error)}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button variant="ghost" onClick={onClose}>
          Cancel
        </Button>
        <Button
          variant="primary"
          disabled={update.isPending}
          onClick={() => update.mutate(timing, { onSuccess: onClose })}
          data-testid="schedule-save"
        >
          {update.isPending ? "Saving…" : "Save"}
        </Button>
      </div>
    </ScheduleModal>
  );
}
