/**
 * A job's plan: everything it will run, frozen when it is launched. An approver approves
 * exactly this, and dispatch reads only this: a form re-imported, edited or synced while the
 * job waits (for approval, for a runner) changes what later jobs run, never this one.
 *
 * The files themselves are frozen by content: the manifest lists them by sha256, a Git
 * source's job reads the checkout of its commit, and a forms-folder job's contents are kept in
 * the database (server/jobs/job-files.ts) until no job that may still run names them.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { formDefinitionSchema, type FormDefinition } from "../forms/definition";
import type { RunOptions } from "../forms/run-options";
import { jobOptionsSchema, type JobOptions, type ManifestEntry } from "../protocol/rte-messages";

export const PLAN_VERSION = 1;

export const jobPlanSchema = z.object({
  v: z.literal(PLAN_VERSION),
  playbook: z.string(),
  inventories: z.array(z.string()),
  /** The options ansible-playbook gets: the launcher's choices over the form's settings. */
  options: jobOptionsSchema,
  /** The form definition the values were checked against (fields, credentials, settings). */
  definition: z.unknown(),
  /** The folder the files came from: a Git source's checkout of the launch commit, or the forms folder. */
  sourceDir: z.string(),
  /** sha256 over the manifest of the form's files (paths and hashes): what "these files" means. */
  contentHash: z.string(),
  /** The runner chosen at launch. */
  runner: z.string(),
});
export type JobPlan = z.infer<typeof jobPlanSchema>;

/** The options a job runs with: what the launcher chose, else what the form sets. */
export function resolveJobOptions(form: FormDefinition, chosen: RunOptions): JobOptions {
  return jobOptionsSchema.parse({
    tags: chosen.tags ?? form.tags,
    skipTags: form.skipTags,
    limit: chosen.limit ?? form.limit ?? null,
    check: chosen.check ?? form.check,
    diff: chosen.diff ?? form.diff,
    verbosity: chosen.verbosity ?? form.verbosity,
    keepExtravars: form.keepExtravars,
    // Only when the form asks: every other job's options stay as they were (and so their keys).
    ...(form.sandbox?.network === false ? { network: false } : {}),
  });
}

/**
 * One hash for a set of files: their paths and contents. Two launches with the same hash ran
 * the same files, whatever happened to the folder in between.
 */
export function contentHashOf(manifest: readonly ManifestEntry[]): string {
  const hash = createHash("sha256");
  for (const entry of [...manifest].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(`${entry.path}\0${entry.sha256}\n`);
  }
  return hash.digest("hex");
}

export function buildJobPlan(input: {
  definition: FormDefinition;
  options: RunOptions;
  sourceDir: string;
  formFiles: readonly ManifestEntry[];
  runner: string;
}): JobPlan {
  return {
    v: PLAN_VERSION,
    playbook: input.definition.playbook,
    inventories: input.definition.inventories,
    options: resolveJobOptions(input.definition, input.options),
    definition: input.definition,
    sourceDir: input.sourceDir,
    contentHash: contentHashOf(input.formFiles),
    runner: input.runner,
  };
}

/**
 * The plan a stored job runs. Jobs launched before plans existed (column null) get one built
 * from their form as it is now: what they always did.
 */
export function planOf(job: {
  plan: unknown;
  runOptions: unknown;
  manifest: readonly ManifestEntry[];
  form: { definition: unknown; sourceDir: string };
  runnerName: string;
}): { plan: JobPlan; definition: FormDefinition } {
  if (job.plan !== null && job.plan !== undefined) {
    const plan = jobPlanSchema.parse(job.plan);
    return { plan, definition: formDefinitionSchema.parse(plan.definition) };
  }
  const definition = formDefinitionSchema.parse(job.form.definition);
  const plan = buildJobPlan({
    definition,
    options: (job.runOptions ?? {}) as RunOptions,
    sourceDir: job.form.sourceDir,
    formFiles: job.manifest,
    runner: job.runnerName,
  });
  return { plan, definition };
}
