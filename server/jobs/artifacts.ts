/**
 * What a playbook hands back: the data it set with `ansible.builtin.set_stats`, the job's
 * **artifacts** (as AWX calls them). The callback plugin sends Ansible's aggregated stats.custom
 * with the PLAY RECAP (the `stats` event, masked like every event by the runner, capped at 1 MiB):
 * `_run` is the run's (set_stats with per_host: false, the default), the other keys are hosts'
 * (per_host: true). The last `stats` event of the job counts (one per playbook run).
 */
import type { PlayformEvent } from "../recap/events";
import { outputGone } from "../retention/settings";
import { loadJobEvents } from "./events";
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

/** The artifacts of job `jobId` (the caller checked the reader may see it). */
export async function artifactsOfJob(jobId: number): Promise<JobArtifacts> {
  const job = await requireJob(jobId);
  if (job.outputPurgedAt) throw outputGone(job.id, job.outputPurgedAt);
  return artifactsFromEvents(await loadJobEvents(job.id));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
