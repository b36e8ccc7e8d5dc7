/**
 * What makes two runs of a form comparable: the same playbook, run over the same part of the
 * inventory and of the play, for real or as a check. A run with `--tags containerd` changes only
 * what those tags reach: compared with a full run it would look like half the tasks vanished;
 * a `--check` run changes nothing, and a `--limit` run leaves hosts out. So each run is judged
 * only against runs of its own kind: the previous run a comparison picks, the runs a form's
 * idempotence report and trend cover, the runs a progress estimate learns from.
 *
 * The kind is the playbook, the tags and skip tags (as sets), the limit and check mode, after
 * the form's defaults (the job's plan, server/jobs/plan.ts). What does not change which tasks
 * run on which hosts (diff, verbosity, the environment, the values) is shown beside a
 * comparison (`runOptionsOf`, `optionDifferences`) but does not make runs incomparable: a run
 * with one more variable is exactly what "run again and see what changed" compares.
 *
 * The kind's key (`runKindKey`) is stored with each job (Job.runKey) so the queries filter on it.
 */
import { createHash } from "node:crypto";
import type { JobOptions } from "../protocol/rte-messages";
import type { JobView } from "../protocol/ui-messages";

export interface RunKind {
  playbook: string;
  tags: string[];
  skipTags: string[];
  limit: string | null;
  check: boolean;
}

/** The kind of a run from its playbook and its options after the form's defaults. */
export function runKindOf(playbook: string, options: Pick<JobOptions, "tags" | "skipTags" | "limit" | "check">): RunKind {
  const set = (values: readonly string[]) => [...new Set(values.map((v) => v.trim()).filter((v) => v !== ""))].sort();
  const limit = options.limit?.trim() ?? "";
  return { playbook, tags: set(options.tags), skipTags: set(options.skipTags), limit: limit === "" ? null : limit, check: options.check };
}

/**
 * A short, stable key of a kind: equal for comparable runs, different otherwise. A drift check
 * (server/recap/drift.ts) has a key of its own: it is compared with earlier drift checks only,
 * and stays out of the idempotence report, trend and progress estimate of the form's other
 * check runs, though it runs with the same options.
 */
export function runKindKey(kind: RunKind, how: { drift?: boolean } = {}): string {
  const canonical = JSON.stringify([kind.playbook, kind.tags, kind.skipTags, kind.limit, kind.check, ...(how.drift ? ["drift"] : [])]);
  return createHash("sha256").update(canonical).digest("hex").slice(0, 32);
}

/** How a run was run, as a comparison shows it beside the run. */
export interface RunOptionsView {
  playbook: string;
  tags: string[];
  skipTags: string[];
  limit: string | null;
  check: boolean;
  diff: boolean;
  verbosity: number;
  /** The Ansible environment it ran in (its name), or null when not recorded. */
  environment: string | null;
  /** sha256 of its form values (password values masked, never hashed): equal values, equal hash. */
  valuesHash: string;
}

export function runOptionsOf(input: {
  playbook: string;
  options: JobOptions;
  environment: string | null;
  values: unknown;
}): RunOptionsView {
  const kind = runKindOf(input.playbook, input.options);
  return {
    ...kind,
    diff: input.options.diff,
    verbosity: input.options.verbosity,
    environment: input.environment,
    valuesHash: createHash("sha256").update(canonicalJson(input.values)).digest("hex"),
  };
}

/** How a job was run (runOptionsOf of its frozen plan), or null for a job launched before plans were kept. */
export function runOptionsOfJob(job: Pick<JobView, "plan" | "environment" | "values">): RunOptionsView | null {
  return job.plan
    ? runOptionsOf({
        playbook: job.plan.playbook,
        options: job.plan.options,
        environment: job.environment?.name ?? null,
        values: job.values,
      })
    : null;
}

export interface OptionDifference {
  option: keyof RunOptionsView;
  first: unknown;
  second: unknown;
}

/** The options in which two runs differ, in a fixed order. */
export function optionDifferences(first: RunOptionsView, second: RunOptionsView): OptionDifference[] {
  const order: (keyof RunOptionsView)[] = [
    "playbook",
    "tags",
    "skipTags",
    "limit",
    "check",
    "diff",
    "verbosity",
    "environment",
    "valuesHash",
  ];
  return order
    .filter((option) => JSON.stringify(first[option]) !== JSON.stringify(second[option]))
    .map((option) => ({ option, first: first[option], second: second[option] }));
}

/** JSON with object keys sorted at every level: the same values give the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
