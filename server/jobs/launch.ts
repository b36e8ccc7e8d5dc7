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
import { findUserByUsername } from "../data/users";
import { buildManifest } from "../forms/manifest";
import { validateRunOptions } from "../forms/run-options";
import { markUploadsLaunched, resolveUploads } from "../forms/uploads";
import { buildExtravars, redactValues, splitSecretExtravars, validateValues } from "../forms/values";
import type { JobLifecycle } from "./lifecycle";

/**
 * Recorded in the audit trail: `job.launch` (target job:ID, or form:NAME when refused) and one
 * `credential.use` per credential the form names (never a value).
 */
export async function launchJob(
  jobs: JobLifecycle,
  user: Viewer,
  formName: string,
  input: Record<string, unknown>,
  optionsInput?: unknown,
): Promise<number> {
  const audit = { actor: user.username, action: "job.launch", target: `form:${formName}`, details: { form: formName } } as const;
  const launched = await audited({ ...audit, targetOf: (r) => `job:${r.id}`, detailsOf: (r) => ({ runner: r.runner }) }, () =>
    createJob(jobs, user, formName, input, optionsInput),
  );
  for (const credential of launched.credentials) {
    const details = { job: launched.id, form: formName };
    await recordAudit({ actor: user.username, action: "credential.use", target: `credential:${credential}`, outcome: "success", details });
  }
  return launched.id;
}

async function createJob(
  jobs: JobLifecycle,
  user: Viewer,
  formName: string,
  input: Record<string, unknown>,
  optionsInput?: unknown,
): Promise<{ id: number; runner: string; credentials: readonly string[] }> {
  // A form the user may not launch answers as one that does not exist (server/access/policy.ts).
  const form = await requireLaunchableForm(user, formName);
  const profile = await findUserByUsername(user.username);
  const checked = validateValues(form.definition, input, {
    user: { username: user.username, name: profile?.displayName, email: profile?.email },
  });
  const options = validateRunOptions(form.definition, optionsInput);
  // Every problem at once, values and run options together, so a form shows them all.
  const errors = { ...(checked.ok ? {} : checked.errors), ...(options.ok ? {} : options.errors) };
  if (!checked.ok || !options.ok) {
    const summary = Object.entries(errors)
      .map(([field, message]) => `${field}: ${message}`)
      .join("; ");
    throw new DomainError("validation_failed", summary, errors);
  }
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
  const id = await jobs.create(
    {
      formId: form.id,
      formName: form.name,
      userId: user.id,
      runnerId: runner.id,
      values: redactValues(form.definition, checked.values),
      extravars: visible,
      secretExtravars: hidden,
      manifest: [...buildManifest(form.sourceDir), ...uploads.manifest],
      runOptions: options.options,
    },
    form.definition.requiresApproval,
  );
  await markUploadsLaunched(uploads, id);
  return { id, runner: runner.name, credentials: form.definition.credentials };
}
