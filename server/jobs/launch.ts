/**
 * Launching a job from a form: validate the values server-side, build the extravars, snapshot
 * the form's files by hash, choose the runner, store the job queued. A rejected launch stores
 * nothing.
 */
import { DomainError } from "../errors";
import { audited, recordAudit } from "../audit/record";
import { checkFormCredentials } from "../credentials/resolve";
import { requireLaunchableForm, type Viewer } from "../access/policy";
import { resolveRunnerFor } from "../data/runners";
import { choicesAtLaunch } from "../forms/choice-source";
import { userContext as userContextOf } from "../forms/form-views";
import { buildManifest } from "../forms/manifest";
import { validateRunOptions, type RunOptions } from "../forms/run-options";
import type { StoredForm } from "../forms/catalog";
import { markUploadsLaunched, resolveUploads } from "../forms/uploads";
import { buildExtravars, redactValues, splitSecretExtravars, validateValues, type FormValues } from "../forms/values";
import type { JobKind } from "../data/jobs";
import { keepLaunchedFiles } from "./job-files";
import type { JobLifecycle } from "./lifecycle";
import { buildJobPlan } from "./plan";

/** Where a launch comes from, when not from a blank form: the job it repeats (Run again), or the schedule that launched it. */
export interface LaunchOrigin {
  relaunchOf?: number;
  scheduleId?: number;
}

/**
 * Recorded in the audit trail: `job.launch` (target job:ID, or form:NAME when refused; with
 * `relaunchOf` for a Run again, `schedule` for a schedule's tick) and one `credential.use` per credential the form names (never a value).
 */
export async function launchJob(
  jobs: JobLifecycle,
  user: Viewer,
  formName: string,
  input: Record<string, unknown>,
  optionsInput?: unknown,
  origin: LaunchOrigin = {},
): Promise<number> {
  return startJob("run", jobs, user, formName, input, optionsInput, origin);
}

/**
 * A preview (the form page's Preview): a job of kind "preview", which the runner answers with
 * `ansible-playbook --list-tasks --list-tags` for these values and options instead of a run.
 * Validated and allowed exactly as a launch; it never waits for approval, since it changes
 * nothing. Audited as `job.preview`, plus `credential.use` (the runner gets the credentials: a
 * vaulted vars file is read to list the tasks).
 */
export async function previewJob(
  jobs: JobLifecycle,
  user: Viewer,
  formName: string,
  input: Record<string, unknown>,
  optionsInput?: unknown,
): Promise<number> {
  return startJob("preview", jobs, user, formName, input, optionsInput, {});
}

async function startJob(
  kind: JobKind,
  jobs: JobLifecycle,
  user: Viewer,
  formName: string,
  input: Record<string, unknown>,
  optionsInput: unknown,
  origin: LaunchOrigin,
): Promise<number> {
  const action = kind === "preview" ? "job.preview" : "job.launch";
  const details = {
    form: formName,
    ...(origin.relaunchOf === undefined ? {} : { relaunchOf: origin.relaunchOf }),
    ...(origin.scheduleId === undefined ? {} : { schedule: origin.scheduleId }),
  };
  const audit = { actor: user.username, action, target: `form:${formName}`, details } as const;
  const launched = await audited({ ...audit, targetOf: (r) => `job:${r.id}`, detailsOf: (r) => ({ runner: r.runner }) }, () =>
    createJob(kind, jobs, user, formName, input, optionsInput, origin),
  );
  for (const credential of launched.credentials) {
    const details = { job: launched.id, form: formName };
    await recordAudit({ actor: user.username, action: "credential.use", target: `credential:${credential}`, outcome: "success", details });
  }
  return launched.id;
}

/** What a launch runs once checked: the form, the values as validated (defaults applied) and the run options. */
export interface CheckedLaunchInput {
  form: StoredForm;
  values: FormValues;
  options: RunOptions;
}

/**
 * The checks of a launch's input, for launches and for what is saved to launch later (a
 * schedule, server/schedules): the form must be one the user may launch (else 404, as for one
 * that does not exist), its values must pass the form's rules with the current choices, its
 * run options must be among those the form offers. Every problem at once, as a 422 with `fields`.
 */
export async function checkLaunchInput(
  user: Viewer,
  formName: string,
  input: Record<string, unknown>,
  optionsInput: unknown,
): Promise<CheckedLaunchInput> {
  // A form the user may not launch answers as one that does not exist (server/access/policy.ts).
  const form = await requireLaunchableForm(user, formName);
  const userContext = await userContextOf(user);
  // The current choices of hosts and source fields (server/forms/choice-source.ts): a value not among them is refused.
  const checked = validateValues(form.definition, input, { user: userContext, choices: await choicesAtLaunch(form, input, userContext) });
  const options = validateRunOptions(form.definition, optionsInput);
  // Every problem at once, values and run options together, so a form shows them all.
  const errors = { ...(checked.ok ? {} : checked.errors), ...(options.ok ? {} : options.errors) };
  if (!checked.ok || !options.ok) {
    const summary = Object.entries(errors)
      .map(([field, message]) => `${field}: ${message}`)
      .join("; ");
    throw new DomainError("validation_failed", summary, errors);
  }
  return { form, values: checked.values, options: options.options };
}

async function createJob(
  kind: JobKind,
  jobs: JobLifecycle,
  user: Viewer,
  formName: string,
  input: Record<string, unknown>,
  optionsInput: unknown,
  origin: LaunchOrigin,
): Promise<{ id: number; runner: string; credentials: readonly string[] }> {
  const { form, values, options } = await checkLaunchInput(user, formName, input, optionsInput);
  const checked = { values };
  // File fields: uploads of this user for this form and field (used before or not: a relaunch
  // runs the same file again), sent with the form's files (server/forms/uploads.ts).
  const uploads = await resolveUploads(user, form, checked.values);
  const credentialProblem = await checkFormCredentials(form.definition.credentials);
  if (credentialProblem) throw new DomainError("validation_failed", credentialProblem);
  const runner = await resolveRunnerFor(form.definition.runner);
  if (!runner) {
    throw new DomainError(
      "conflict",
      form.definition.runner ? `runner "${form.definition.runner}" does not exist or is not approved` : "no default runner is approved yet",
    );
  }
  // Password values never reach the job row in plain: the lifecycle stores them sealed, only
  // until the job runs (server/jobs/job-secrets.ts); the job's values show "********".
  const { visible, hidden } = splitSecretExtravars(form.definition, buildExtravars(form.definition, checked.values));
  // What the job runs is frozen now, files included (server/jobs/plan.ts, job-files.ts): an
  // approver approves exactly this, and an edit of the form while it waits changes nothing.
  const formFiles = buildManifest(form.sourceDir);
  if (!form.sourceCommit) await keepLaunchedFiles(form.sourceDir, formFiles);
  const plan = buildJobPlan({ definition: form.definition, options, sourceDir: form.sourceDir, formFiles, runner: runner.name });
  const id = await jobs.create(
    {
      formId: form.id,
      formName: form.name,
      userId: user.id,
      runnerId: runner.id,
      values: redactValues(form.definition, checked.values),
      extravars: visible,
      secretExtravars: hidden,
      manifest: [...formFiles, ...uploads.manifest],
      runOptions: options,
      kind,
      relaunchOfId: origin.relaunchOf ?? null,
      // A form of a Git source: the job runs, and records, the commit the form is at now.
      sourceName: form.sourceName ?? null,
      sourceCommit: form.sourceCommit ?? null,
      scheduleId: origin.scheduleId ?? null,
      plan,
    },
    kind === "run" && form.definition.requiresApproval,
  );
  await markUploadsLaunched(uploads, id);
  return { id, runner: runner.name, credentials: form.definition.credentials };
}
