/**
 * What a playbook hands back: the data it set with `ansible.builtin.set_stats`, the job's
 * **artifacts** (as AWX calls them). The callback plugin sends Ansible's aggregated stats.custom
 * with the PLAY RECAP (the `stats` event, masked like every event by the runner, capped at 1 MiB):
 * `_run` is the run's (set_stats with per_host: false, the default), the other keys are hosts'
 * (per_host: true). The last `stats` event of the job counts (one per playbook run).
 *
 * They are read from the job's last event chunks (the `stats` event is near the end of a run),
 * not from all its events. Retention keeps them on the job (Job.artifacts) before it removes the
 * output, so they outlive it, as the recap does.
 */
import { eventChunksBefore } from "../data/job-output";
import { findKeptArtifacts } from "../data/jobs";
import { parsePlayformEvent, type PlayformEvent } from "../recap/events";
import type { JobView } from "../protocol/ui-messages";
import { outputGone } from "../retention/settings";
import { requireJob } from "./access";

export interface JobArtifacts {
  /** The run's set_stats data (per_host: false). */
  artifacts: Record<string, unknown>;
  /** Each host's set_stats data (per_host: true), by host. */
  hosts: Record<string, Record<string, unknown>>;
  /** Why the data is missing though the playbook set some (over the 1 MiB cap); null otherwise. */
  error: string | null;
}

export function artifactsFromEvents(events: readonly PlayformEvent[]): JobArtifacts {
  const stats = events.filter((event) => event.type === "stats").at(-1);
  const none: JobArtifacts = { artifacts: {}, hosts: {}, error: null };
  if (!stats || stats.type !== "stats") return none;
  const { _run: run, ...perHost } = stats.custom ?? {};
  const hosts: Record<string, Record<string, unknown>> = {};
  for (const [host, data] of Object.entries(perHost)) if (isRecord(data)) hosts[host] = data;
  return { artifacts: isRecord(run) ? run : {}, hosts, error: stats.custom_error ?? null };
}

/** Event chunks read at a time, from the end, looking for the last `stats` event. */
const CHUNKS_PER_READ = 16;

/** The artifacts in job `jobId`'s stored events: its last `stats` event's, read from the end. */
export async function latestArtifacts(jobId: number): Promise<JobArtifacts> {
  let before = Infinity;
  for (;;) {
    const chunks = await eventChunksBefore(jobId, before, CHUNKS_PER_READ);
    for (const chunk of chunks) {
      for (let i = chunk.events.length - 1; i >= 0; i--) {
        const parsed = parsePlayformEvent(chunk.events[i]);
        if (parsed.kind === "event" && parsed.event.type === "stats") return artifactsFromEvents([parsed.event]);
      }
    }
    if (chunks.length < CHUNKS_PER_READ) return artifactsFromEvents([]);
    before = chunks.at(-1)!.seq;
  }
}

/** What retention kept of a job's artifacts, or null (kept before this existed, or malformed). */
async function keptArtifacts(jobId: number): Promise<JobArtifacts | null> {
  const kept = await findKeptArtifacts(jobId);
  if (!isRecord(kept) || !isRecord(kept.artifacts) || !isRecord(kept.hosts)) return null;
  return {
    artifacts: kept.artifacts,
    hosts: kept.hosts as Record<string, Record<string, unknown>>,
    error: typeof kept.error === "string" ? kept.error : null,
  };
}

/**
 * A finished job's artifacts as the analytics use them (compare, notifications, the report):
 * from its events, or what retention kept once the output is gone; null when not known.
 */
export async function knownArtifacts(job: Pick<JobView, "id" | "outputPurgedAt">): Promise<JobArtifacts | null> {
  return job.outputPurgedAt ? keptArtifacts(job.id) : latestArtifacts(job.id);
}

/** The artifacts of job `jobId` (the caller checked the reader may see it); 410 when the output is gone and nothing was kept. */
export async function artifactsOfJob(jobId: number): Promise<JobArtifacts> {
  const job = await requireJob(jobId);
  if (!job.outputPurgedAt) return latestArtifacts(job.id);
  const kept = await keptArtifacts(job.id);
  if (kept === null) throw outputGone(job.id, job.outputPurgedAt);
  return kept;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
