/**
 * A job's recap: from the callback plugin's structured events when the job has them (exact,
 * and available live), else from the stored text output (runs of older RTEs, imported logs).
 * An incomplete run (a job killed, aborted, timed out) gets the partial_* fields
 * (docs/recap.md, "Incomplete runs"): what it did get before it stopped. One from events also
 * gets changed_results (which hosts each changed= of the PLAY RECAP comes from) and playbook_sec
 * (the playbook's elapsed time to the millisecond, as the timeline measures it).
 */
import { jobStdout } from "../data/job-output";
import { recapFromEvents } from "../recap/from-events";
import { RecapTextParser } from "../recap/parse-text";
import { timelineFromEvents } from "../recap/timeline";
import type { Recap } from "../recap/types";
import { loadJobEvents } from "./events";

export type RecapSource = "events" | "text";

/** The recap from the job's structured events, or null when it has none. */
async function eventsRecap(jobId: number): Promise<Recap | null> {
  const events = await loadJobEvents(jobId);
  if (events.length === 0) return null;
  return { ...recapFromEvents(events, { partial: true }), playbook_sec: timelineFromEvents(events).total_sec };
}

async function textRecap(jobId: number): Promise<Recap> {
  const parser = new RecapTextParser({ partial: true });
  // Chunk by chunk: the parser streams, so a long log is never joined into one string.
  for (const text of await jobStdout(jobId)) parser.push(text);
  return parser.finish();
}

/** The job's recap: from its events when it has them, else from its text. */
export async function jobRecap(jobId: number): Promise<{ recap: Recap; source: RecapSource }> {
  const fromEvents = await eventsRecap(jobId);
  return fromEvents ? { recap: fromEvents, source: "events" } : { recap: await textRecap(jobId), source: "text" };
}

/** The recap from one given source (to check that both agree); null when the job has no events. */
export async function jobRecapFrom(jobId: number, source: RecapSource): Promise<{ recap: Recap; source: RecapSource } | null> {
  const recap = source === "events" ? await eventsRecap(jobId) : await textRecap(jobId);
  return recap ? { recap, source } : null;
}
