"use client";

import { useState } from "react";
import { errorMessage } from "@/components/api/client";
import type { Job } from "@/components/api/types";
import { useJobPermissions } from "@/components/hooks/use-job";
import { useJobDecision } from "@/components/hooks/use-job-decision";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/panel";
import { JobPlan } from "./job-plan";

const DECISIONS = [
  { decide: "approve", label: "Approve and run", variant: "primary" },
  { decide: "reject", label: "Reject", variant: "danger" },
] as const;

/**
 * A job of a form that requires approval waits here: it has reached no runner yet. Admins and
 * members of the form's approve groups approve (it joins the queue) or reject it (it ends rejected), with an optional comment that
 * stays on the job as its status reason.
 */
export function ApprovalPanel({ job }: { job: Job }) {
  const decision = useJobDecision(job.id);
  const [comment, setComment] = useState("");
  const canDecide = useJobPermissions(job.id).data?.approve ?? false;

  return (
    <Panel title="Waiting for approval" data-testid="approval-panel">
      <p className="text-sm text-zinc-700">
        This form needs an admin&apos;s approval before the job runs. Until then it reaches no runner. Approving runs exactly this, whatever
        happens to the form meanwhile:
      </p>
      <div className="mt-2 rounded-md border border-zinc-200 bg-zinc-50 p-3">
        <JobPlan job={job} />
      </div>
      {canDecide ? (
        <div className="mt-3 flex flex-wrap items-end gap-2">
          <label className="flex min-w-64 flex-1 flex-col gap-1 text-xs text-zinc-600">
            Comment (optional, kept on the job)
            <input
              className="rounded-md border border-zinc-300 px-2.5 py-1.5 text-sm text-zinc-900 focus:border-indigo-500 focus:outline-none"
              value={comment}
              maxLength={500}
              onChange={(event) => setComment(event.target.value)}
              data-testid="approval-comment"
            />
          </label>
          {DECISIONS.map(({ decide, label, variant }) => (
            <Button
              key={decide}
              variant={variant}
              disabled={decision.isPending}
              onClick={() => decision.mutate({ decision: decide, comment })}
              data-testid={`${decide}-job`}
            >
              {label}
            </Button>
          ))}
        </div>
      ) : (
        <p className="mt-2 text-sm text-zinc-500">
          An admin or an approver of this form will approve or reject it; this page updates by itself.
        </p>
      )}
      {decision.isError && <p className="mt-2 text-sm text-red-700">{errorMessage(decision.error)}</p>}
    </Panel>
  );
}
