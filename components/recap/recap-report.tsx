import type { Recap } from "@/components/api/types";
import { Panel } from "@/components/ui/panel";
import { RecapAnalytics } from "./recap-analytics";
import type { TaskLine } from "./recap-list";
import { RecapTable } from "./recap-table";
import { recapView } from "./recap-view";

/**
 * The PLAY RECAP table and the run analytics of one recap, wherever the recap came from (a
 * job, an uploaded log). `noRecap` is what to say when the log never got to a play. A job's
 * recap passes `taskLine`: task names then link to their first line in the output.
 */
export function RecapReport({
  recap,
  noRecap,
  taskLine,
  measuredElapsedSec,
}: {
  recap: Recap;
  noRecap: string;
  taskLine?: TaskLine;
  /** The playbook's time measured from the job's events, finer than the recap's whole seconds. */
  measuredElapsedSec?: number | null;
}) {
  const view = recapView(recap);
  if (view.hosts.length === 0 && (recap.plays?.length ?? 0) === 0) {
    return (
      <Panel title="Play recap">
        <p className="text-sm text-zinc-500" data-testid="recap-missing">
          {noRecap}
        </p>
      </Panel>
    );
  }
  return (
    <div className="space-y-6">
      <Panel title={view.partial || recap.output_truncated ? "Play recap (partial)" : "Play recap"} bodyClassName="p-0">
        {recap.output_truncated && (
          <p className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900" data-testid="recap-output-truncated">
            <span className="font-semibold">Partial output:</span> the runner stopped storing the job&apos;s output at its size limit
            (PROCESS_MAX_BUFFER); the playbook ran on, but what it printed after that is not kept.
          </p>
        )}
        {view.incomplete && (
          <p className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900" data-testid="recap-incomplete">
            <span className="font-semibold">Incomplete run:</span> it stopped before its PLAY RECAP (killed, aborted or timed out).
            {view.partial
              ? " The counts below are the task results it printed so far, not Ansible's recap."
              : " Ansible printed no recap rows."}
          </p>
        )}
        {view.hosts.length === 0 ? (
          <p className="px-4 py-3 text-sm text-zinc-500">{view.incomplete ? "No task result before it stopped." : "No host ran a task."}</p>
        ) : (
          <div data-testid={view.partial ? "recap-partial-hosts" : undefined}>
            <RecapTable hosts={view.hosts} />
          </div>
        )}
      </Panel>
      <Panel title="Run analytics">
        <RecapAnalytics recap={recap} taskLine={taskLine} measuredElapsedSec={measuredElapsedSec} />
      </Panel>
    </div>
  );
}
