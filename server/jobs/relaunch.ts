/**
 * Run again: a new job from a finished one's values and run options, through the normal launch
 * (launchJob), linked back to it (`relaunchOf`). Password values are never reused: the old job
 * holds them only as "********", so the caller gives them again or the launch says they are
 * required.
 */
import { DomainError } from "../errors";
import { requireVisibleJob, type Viewer } from "../access/policy";
import { getJobKind } from "../data/jobs";
import { findForm } from "../forms/catalog";
import type { FormDefinition } from "../forms/definition";
import { launchJob } from "./launch";
import type { JobLifecycle } from "./lifecycle";

export interface RelaunchInput {
  /** Values that replace the old job's (given keys win); password fields must be given again. */
  values?: Record<string, unknown>;
  /** Run options that replace the old job's, key by key. */
  options?: Record<string, unknown>;
}

/**
 * The new job's id. 404 when the caller may not read job `jobId` or launch its form (as for one
 * that does not exist), 409 for a preview or a job whose form no longer exists.
 */
export async function relaunchJob(jobs: JobLifecycle, viewer: Viewer, jobId: number, input: RelaunchInput): Promise<number> {
  const { job } = await requireVisibleJob(viewer, jobId);
  if ((await getJobKind(job.id)) === "preview") {
    throw new DomainError("conflict", `job ${job.id} is a preview: launch the form instead of running it again`);
  }
  const form = await findForm(job.form);
  if (!form) throw new DomainError("conflict", `the form "${job.form}" of job ${job.id} no longer exists: it cannot be run again`);
  const values = { ...reusableValues(form.definition, job.values), ...input.values };
  const options = { ...reusableOptions(form.definition, job.runOptions), ...input.options };
  // launchJob checks that the viewer may launch the form (404 otherwise) and validates everything.
  return launchJob(jobs, viewer, form.name, values, options, { relaunchOf: job.id });
}

/** The old values the form still has a field for, without password fields (stored redacted). */
function reusableValues(form: FormDefinition, old: Record<string, unknown>): Record<string, unknown> {
  const reusable: Record<string, unknown> = {};
  for (const field of form.fields) {
    if (field.type === "password" || !(field.name in old)) continue;
    reusable[field.name] = old[field.name];
  }
  return reusable;
}

/** The old run options the form still lets users choose at launch. */
function reusableOptions(form: FormDefinition, old: Record<string, unknown>): Record<string, unknown> {
  const allowed = new Set<string>(form.launchOptions);
  return Object.fromEntries(Object.entries(old).filter(([name]) => allowed.has(name)));
}
