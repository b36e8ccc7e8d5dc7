/**
 * A job's recap: from the callback plugin's structured events when the job has them (exact,
 * and available live), else from the stored text output (runs of older RTEs, imported logs).
 */
import { jobStdout } from "../data/jobs";
import { recapFromEvents } from "../recap/from-events";
import { RecapTextParser } from "../recap/parse-text";
import type { Recap } from "../recap/types";
import { loadJobEvents } from "./events";

export type RecapSource = "events" | "text";

/**
 * `prefer` forces one source (for checking that both agree); "events" with no events stored
 * gives null.
 */
export async function jobRecap(jobId: number, prefer?: RecapSource): Promise<{ recap: Recap; source: RecapSource }>;
export async function jobRecap(jobId: number, prefer: "events"): Promise<{ recap: Recap; source: RecapSource } | null>;
export async function jobRecap(jobId: number, prefer?: RecapSource): Promise<{ recap: Recap; source: RecapSource } | null> {
  if (prefer !== "text") {
    const events = await loadJobEvents(jobId);
    if (events.length > 0) return { recap: recapFromEvents(events), source: "events" };
    if (prefer === "events") return null;
  }
  const parser = new RecapTextParser();
  // Chunk by chunk: the parser streams, so a long log is never joined into one string.
  for (const text of await jobStdout(jobId)) parser.push(text);
  return { recap: parser.finish(), source: "text" };
}
