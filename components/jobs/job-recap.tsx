"use client";

import { ApiError } from "@/components/api/client";
import { useJobRecap } from "@/components/hooks/use-job-recap";
import { Panel } from "@/components/ui/panel";
import { Spinner } from "@/components/ui/states";
import { RecapAnalytics } from "./recap-analytics";
import { RecapTable } from "./recap-table";

/** PLAY RECAP and run analytics of a finished job. */
export function JobRecap({ jobId }: { jobId: number }) {
  const recap = useJobRecap(jobId, true);

  if (recap.isPending) {
    return (
      <Panel title="Play recap">
        <p className="flex items-center gap-2 text-sm text-zinc-500">
          <Spinner /> Reading the recap…
        </p>
      </Panel>
    );
  }
  if (recap.isError) {
    const missing = recap.error instanceof ApiError && recap.error.status === 404;
    return (
      <Panel title="Play recap">
        <p className="text-sm text-zinc-500" data-testid="recap-missing">
          {missing ? "No recap: the playbook did not get far enough to print one." : "Could not load the recap."}
        </p>
      </Panel>
    );
  }

  const data = recap.data;
  if (data.hosts.length === 0 && (data.plays?.length ?? 0) === 0) {
    return (
      <Panel title="Play recap">
        <p className="text-sm text-zinc-500" data-testid="recap-missing">
          No recap: the playbook stopped before any play ran.
        </p>
      </Panel>
    );
  }
  return (
    <div className="space-y-6">
      <Panel title="Play recap" bodyClassName="p-0">
        {data.hosts.length === 0 ? (
          <p className="px-4 py-3 text-sm text-zinc-500">No host ran a task.</p>
        ) : (
          <RecapTable hosts={data.hosts} />
        )}
      </Panel>
      <Panel title="Run analytics">
        <RecapAnalytics recap={data} />
      </Panel>
    </div>
  );
}
