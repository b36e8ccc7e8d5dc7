"use client";

import { useState } from "react";
import { errorMessage } from "@/components/api/client";
import type { Job } from "@/components/api/types";
import { useAbortJob } from "@/components/hooks/use-abort-job";
import { useJobPermissions } from "@/components/hooks/use-job";
import { Button } from "@/components/ui/button";

/**
 * Two clicks to abort: a running playbook stopped halfway can leave hosts half-changed. Shown
 * to those who may abort it (its launcher, the form's approvers, admins); observers only read.
 */
export function AbortButton({ job }: { job: Job }) {
  const abort = useAbortJob(job.id);
  const [confirming, setConfirming] = useState(false);
  const permissions = useJobPermissions(job.id);

  if (!permissions.data?.abort) return null;

  if (job.abortRequested || abort.isSuccess) {
    return (
      <Button variant="danger" disabled>
        Aborting…
      </Button>
    );
  }

  return (
    <div className="flex items-center gap-2">
      {abort.isError && <span className="text-xs text-red-700">{errorMessage(abort.error)}</span>}
      {confirming ? (
        <>
          <span className="text-xs text-zinc-600">Stop this job?</span>
          <Button
            variant="dangerSolid"
            onClick={() => abort.mutate(undefined, { onSettled: () => setConfirming(false) })}
            disabled={abort.isPending}
            data-testid="abort-confirm"
          >
            {abort.isPending ? "Aborting…" : "Yes, abort"}
          </Button>
          <Button variant="ghost" onClick={() => setConfirming(false)} disabled={abort.isPending}>
            Cancel
          </Button>
        </>
      ) : (
        <Button variant="danger" onClick={() => setConfirming(true)} data-testid="abort-job">
          Abort
        </Button>
      )}
    </div>
  );
}
