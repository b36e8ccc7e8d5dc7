/**
 * A job's structured events (the callback plugin's side channel) as stored, parsed. Shared by
 * everything derived from them (the recap, the timeline) so they read the same events.
 */
import { jobEvents } from "../data/job-output";
import { parsePlayformEvent, type PlayformEvent } from "../recap/events";

/**
 * The known, valid events of a job in the order they were stored; [] when it has none (still
 * queued, or run by an RTE without the plugin). Events of another contract version or an
 * unknown type are skipped, as are invalid ones: one bad line must not hide a whole run.
 */
export async function loadJobEvents(jobId: number): Promise<PlayformEvent[]> {
  const events: PlayformEvent[] = [];
  for (const raw of await jobEvents(jobId)) {
    const parsed = parsePlayformEvent(raw);
    if (parsed.kind === "event") events.push(parsed.event);
  }
  return events;
}
