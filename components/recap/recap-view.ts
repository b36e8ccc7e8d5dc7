/**
 * What the recap panels show of a recap (pure, so it is unit-tested): an incomplete run (no
 * PLAY RECAP: killed, aborted) shows its partial_* figures, marked partial, instead of the
 * empty PLAY RECAP rows and the missing profile_tasks summary (docs/recap.md, "Incomplete runs").
 */
import type { Recap, RecapHostRow, RecapTaskTiming } from "@/components/api/types";

export interface RecapView {
  /** The run stopped before its PLAY RECAP. */
  incomplete: boolean;
  /** The figures below are the partial_* ones: what the run got before it stopped. */
  partial: boolean;
  hosts: RecapHostRow[];
  elapsedSec: number | null;
  slowest: RecapTaskTiming[];
}

export function recapView(recap: Recap): RecapView {
  const incomplete = recap.status === "incomplete";
  const partial = incomplete && recap.partial_hosts !== undefined;
  if (!partial) {
    return { incomplete, partial, hosts: recap.hosts ?? [], elapsedSec: recap.elapsed_sec ?? null, slowest: recap.slowest_tasks ?? [] };
  }
  return {
    incomplete,
    partial,
    hosts: recap.partial_hosts ?? [],
    elapsedSec: recap.partial_elapsed_sec ?? null,
    slowest: recap.partial_slowest_tasks ?? [],
  };
}
