/**
 * What an app node's /ui hub did for live output, as it prints it when it stops
 * (server/index.ts: "live output since start: …"): batches this node stored, how many of them
 * it broadcast as stored (no read back), and the reads of output it did for followers.
 * The counters are the hub's own (UiHubStats in server/hub/ui-hub.ts, plus the /rte hub's
 * batchesStored), read from the node's output: no test hook in the app.
 */
export interface LiveOutputStats {
  batchesStored: number;
  directBroadcasts: number;
  /** Reads a job's feed did, shared by every follower on the node. */
  feedReads: number;
  /** Reads of followers catching up on their own before they join the job's room. */
  catchUpReads: number;
  broadcasts: number;
}

const LINE =
  /live output since start: (\d+) batches stored \((\d+) broadcast as stored\); followers' output reads: (\d+) shared \(one per job per batch\), (\d+) catch-up, (\d+) broadcasts/g;

/** The last such line in a node's output (it is printed once per stop); throws when there is none. */
export function liveOutputStats(output: string): LiveOutputStats {
  const match = [...output.matchAll(LINE)].at(-1);
  if (!match) throw new Error(`no "live output since start" line in the app's output (printed when it stops):\n${output.slice(-4000)}`);
  const [batchesStored, directBroadcasts, feedReads, catchUpReads, broadcasts] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return { batchesStored, directBroadcasts, feedReads, catchUpReads, broadcasts };
}
