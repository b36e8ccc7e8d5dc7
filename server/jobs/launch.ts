/**
 * Launching a job from a form: validate the values server-side, build the extravars, snapshot
 * the form's files by hash, choose the runner, store the job queued. A rejected launch stores
 * nothing.
 */
import { createHash } from "node:crypto";
import { DomainError } from "../errors";
import { audited, recordAudit } from "../audit/record";
import { checkFormCredentials } from "../credentials/resolve";
import { requireLaunchableForm, type Viewer } from "../access/policy";
import { findJobByIdempotencyKey, releaseIdempotencyKey } from "../data/jobs";
import { isUniqueViolation } from "../data/unique";
import { resolveRunnerFor, runnerStatesByName } from "../data/runners";
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
import { runKindKey, runKindOf } from "./run-kind";

/** Where a launch comes from, when not from a blank form: the job it repeats (Run again), or the schedule that launched it. */
export interface LaunchOrigin {
  relaunchOf?: number;
  scheduleId?: number;
  /** A drift check (a schedule in drift mode, server/recap/drift.ts): run with --check --diff, whatever the form offers. */
  drift?: boolean;
}

/** What a launch from POST /api/jobs may add: the runner chosen among the form's `runners`, and an Idempotency-Key. */
export interface LaunchRequestExtras {
  runner?: string;
  idempotencyKey?: string;
}

/** How long an Idempotency-Key answers its first job (docs/api.md, "Launching a job twice"). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_HEADER = "Idempotency-Key";

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
  return (await startJob("run", jobs, user, formName, input, optionsInput, origin)).id;
}

/**
 * A launch from POST /api/jobs: as launchJob, with the runner the user chose among the form's
 * `runners` and an optional Idempotency-Key. The same key from the same user within 24 h answers
 * the job it first started (`created: false`) instead of starting another, also when both
 * requests arrive at once (the key is unique per user in the database); the same key with
 * another form, other values, options or runner is refused (422), as it is most likely a bug of
 * the caller that reuses keys.
 */
export async function launchJobRequest(
  jobs: JobLifecycle,
  user: Viewer,
  formName: string,
  input: Record<string, unknown>,
  optionsInput: unknown,
  extras: LaunchRequestExtras,
): Promise<{ id: number; created: boolean }> {
  return startJob("run", jobs, user, formName, input, optionsInput, {}, extras);
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
  return (await startJob("preview", jobs, user, formName, input, optionsInput, {})).id;
}

/** The job launched (`created`), or the one an earlier request with the same Idempotency-Key started. */
async function startJob(
  kind: JobKind,
  jobs: JobLifecycle,
  user: Viewer,
  formName: string,
  input: Record<string, unknown>,
  optionsInput: unknown,
  origin: LaunchOrigin,
  extras: LaunchRequestExtras = {},
): Promise<{ id: number; created: boolean }> {
  const action = kind === "preview" ? "job.preview" : "job.launch";
  const details = {
    form: formName,
    ...(origin.relaunchOf === undefined ? {} : { relaunchOf: origin.relaunchOf }),
    ...(origin.scheduleId === undefined ? {} : { schedule: origin.scheduleId }),
    ...(origin.drift ? { drift: true } : {}),
  };
  const audit = { actor: user.username, action, target: `form:${formName}`, details } as const;
  const launched = await audited(
    {
      ...audit,
      targetOf: (r) => `job:${r.id}`,
      // A repeated Idempotency-Key started nothing: recorded, saying which job it answered.
      detailsOf: (r) => ({ runner: r.runner, ...(r.created ? {} : { idempotentReplay: true }) }),
    },
    () => createJob(kind, jobs, user, formName, input, optionsInput, origin, extras),
  );
  if (launched.created) {
    for (const credential of launched.credentials) {
      const details = { job: launched.id, form: formName };
      await recordAudit({
        actor: user.username,
        action: "credential.use",
        target: `credential:${credential}`,
        outcome: "success",
        details,
      });
    }
  }
  return { id: launched.id, created: launched.created };
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
  extras: LaunchRequestExtras,
): Promise<{ id: number; runner: string; credentials: readonly string[]; created: boolean }> {
  const checked = await checkLaunchInput(user, formName, input, optionsInput);
  const { form } = checked;
  // A drift check asks "would a run change anything now?": check mode with diffs, whether or
  // not the form lets a launcher choose them (it changes nothing, so it needs no such leave).
  const options: RunOptions = origin.drift ? { ...checked.options, check: true, diff: true } : checked.options;
  // File fields: uploads of this user for this form and field (used before or not: a relaunch
  // runs the same file again), sent with the form's files (server/forms/uploads.ts).
  const uploads = await resolveUploads(user, form, checked.values);
  const credentialProblem = await checkFormCredentials(form.definition.credentials);
  if (credentialProblem) throw new DomainError("validation_failed", credentialProblem);
  const runner = await chooseRunner(form, extras.runner);
  // Password values never reach the job row in plain: the lifecycle stores them sealed, only
  // until the job runs (server/jobs/job-secrets.ts); the job's values show "********".
  const { visible, hidden } = splitSecretExtravars(form.definition, buildExtravars(form.definition, checked.values));
  const shownValues = redactValues(form.definition, checked.values);
  // What the job runs is frozen now, files included (server/jobs/plan.ts, job-files.ts): an
  // approver approves exactly this, and an edit of the form while it waits changes nothing.
  const formFiles = buildManifest(form.sourceDir);
  const key = extras.idempotencyKey;
  // What the keyed request asked for, passwords masked: a password is never hashed into a row.
  const hash = key === undefined ? null : sha256(JSON.stringify([form.name, shownValues, options, runner.name]));
  if (key !== undefined) {
    const earlier = await earlierLaunch(user, key, hash!);
    if (earlier !== null) return { id: earlier, runner: runner.name, credentials: form.definition.credentials, created: false };
  }
  if (!form.sourceCommit) await keepLaunchedFiles(form.sourceDir, formFiles);
  const plan = buildJobPlan({ definition: form.definition, options, sourceDir: form.sourceDir, formFiles, runner: runner.name });
  const create = () =>
    jobs.create(
      {
        formId: form.id,
        formName: form.name,
        userId: user.id,
        runnerId: runner.id,
        values: shownValues,
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
        drift: origin.drift === true,
        idempotencyKey: key ?? null,
        idempotencyHash: hash,
        plan,
        runKey: kind === "run" ? runKindKey(runKindOf(plan.playbook, plan.options), { drift: origin.drift === true }) : null,
      },
      kind === "run" && form.definition.requiresApproval,
    );
  let id: number;
  try {
    id = await create();
  } catch (error) {
    // Another request with the same key created its job between our look and our insert.
    if (key === undefined || !isUniqueViolation(error)) throw error;
    const earlier = await earlierLaunch(user, key, hash!);
    if (earlier === null) throw error;
    return { id: earlier, runner: runner.name, credentials: form.definition.credentials, created: false };
  }
  await markUploadsLaunched(uploads, id);
  return { id, runner: runner.name, credentials: form.definition.credentials, created: true };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The job an earlier request with this key started within the window, or null. A key older than
 * the window is freed for this launch; one used for another request is refused.
 */
async function earlierLaunch(user: Viewer, key: string, hash: string): Promise<number | null> {
  const earlier = await findJobByIdempotencyKey(user.id, key);
  if (earlier === null) return null;
  const windowStart = new Date(Date.now() - IDEMPOTENCY_WINDOW_MS);
  if (earlier.createdAt < windowStart) {
    await releaseIdempotencyKey(earlier.id, windowStart);
    return null;
  }
  if (earlier.idempotencyHash !== hash) {
    const message = `was already used for another launch (job ${earlier.id}) with another form, values, run options or runner: send a new key for a new launch`;
    throw new DomainError("validation_failed", `${IDEMPOTENCY_HEADER}: ${message}`, { [IDEMPOTENCY_HEADER]: message });
  }
  return earlier.id;
}

/**
 * The runner of a launch. A form with `runners:` lets the launcher choose one of them (the first
 * approved one when they do not); the runner must be approved, connected or not (a job for a
 * runner that is away waits in the queue). Otherwise the form's `runner:`, else the default one.
 */
async function chooseRunner(form: StoredForm, chosen: string | undefined): Promise<{ id: string; name: string }> {
  const choices = form.definition.runners;
  if (choices === undefined) {
    if (chosen !== undefined && chosen !== form.definition.runner) {
      const message = form.definition.runner
        ? `this form runs on runner "${form.definition.runner}" only`
        : "this form runs on the default runner: it offers no choice of runner (runners: in form.yaml)";
      throw new DomainError("validation_failed", `runner: ${message}`, { runner: message });
    }
    const runner = await resolveRunnerFor(form.definition.runner);
    if (!runner) {
      throw new DomainError(
        "conflict",
        form.definition.runner
          ? `runner "${form.definition.runner}" does not exist or is not approved`
          : "no default runner is approved yet",
      );
    }
    return runner;
  }
  const states = await runnerStatesByName(choices);
  if (chosen !== undefined) {
    if (!choices.includes(chosen)) {
      const message = `must be one of the form's runners (${choices.join(", ")}), not "${chosen}"`;
      throw new DomainError("validation_failed", `runner: ${message}`, { runner: message });
    }
    const state = states.get(chosen);
    if (!state || state.status !== "approved") {
      const message = `runner "${chosen}" ${state ? `is ${state.status}` : "does not exist"}: only an approved runner takes jobs`;
      throw new DomainError("validation_failed", `runner: ${message}`, { runner: message });
    }
    return { id: state.id, name: chosen };
  }
  for (const name of choices) {
    const state = states.get(name);
    if (state?.status === "approved") return { id: state.id, name };
  }
  throw new DomainError("conflict", `none of the form's runners (${choices.join(", ")}) is approved`);
}
