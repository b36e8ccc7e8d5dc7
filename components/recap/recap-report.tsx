import type { Recap } from "@/components/api/types";
import { Panel } from "@/components/ui/panel";
import { RecapAnalytics } from "./recap-analytics";
import type { TaskLine } from "./recap-list";
import { RecapTable } from "./recap-table";

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
  if (recap.hosts.length === 0 && (recap.plays?.length ?? 0) === 0) {
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
      <Panel title="Play recap" bodyClassName="p-0">
        {recap.hosts.length === 0 ? (
          <p className="px-4 py-3 text-sm text-zinc-500">No host ran a task.</p>
        ) : (
          <RecapTable hosts={recap.hosts} />
        )}
      </Panel>
      <Panel title="Run analytics">
        <RecapAnalytics recap={recap} taskLine={taskLine} measuredElapsedSec={measuredElapsedSec} />
      </Panel>
    </div>
  );
}
