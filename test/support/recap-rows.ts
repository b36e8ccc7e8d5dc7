/**
 * Recaps built by hand for tests of what reads them (comparisons, reports): an empty,
 * successful recap with the fields a test names, and a host's PLAY RECAP row.
 */
import type { Recap, RecapHostRow } from "../../server/recap/types";

/** An empty, successful recap, with `over`'s fields. */
export function recap(over: Partial<Recap> = {}): Recap {
  return {
    plays: [],
    hosts: [],
    elapsed_sec: null,
    slowest_tasks: [],
    changed_tasks: [],
    ignored_failures: [],
    failed_tasks: [],
    unreachable_hosts: [],
    status: "successful",
    ...over,
  };
}

/** A host's PLAY RECAP row: zero in every counter but those given. */
export function hostRow(host: string, counts: Partial<Omit<RecapHostRow, "host">> = {}): RecapHostRow {
  return { host, ok: 0, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0, ...counts };
}
