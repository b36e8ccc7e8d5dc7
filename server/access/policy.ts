/**
 * Who may see and do what: the one place the rule lives. Every route, page and socket event
 * that touches a form or a job asks here.
 *
 * - A form is **visible** (in the catalog, launchable) to everyone when its form.yaml names no
 *   `access.launch` groups, else to members of those groups; admins see every form.
 * - A job is **visible** to whoever launched it, to members of its form's `observe` or
 *   `approve` groups, and to admins. Everything else answers 404, as if it did not exist, so
 *   job ids and form names do not leak.
 * - A job is **approved or rejected** by admins and members of its form's `approve` groups.
 * - A job is **aborted** by its launcher, its form's approvers and admins; observers only read.
 * - A job is **run again** by whoever may launch its form (a new job, the caller's own).
 *
 * A form's trend and idempotence report are computed over the runs the reader may see. A job
 * of a form that no longer exists keeps its launcher and admins as readers.
 */
import { DomainError } from "../errors";
import { recordAudit } from "../audit/record";
import { ALL_JOBS, type JobScope } from "../data/job-scope";
import { getJobView, type JobView } from "../data/jobs";
import { groupsOfUser } from "../data/groups";
import type { PublicUser } from "../data/users";
import { findForm, listForms, type StoredForm } from "../forms/catalog";
import type { FormDefinition } from "../forms/definition";

/** A signed-in user with their groups: what every access decision is made on. */
export interface Viewer extends PublicUser {
  groups: readonly string[];
}

export async function viewerOf(user: PublicUser): Promise<Viewer> {
  return { ...user, groups: user.role === "admin" ? [] : await groupsOfUser(user.id) };
}

type FormAccess = FormDefinition["access"];

const inAny = (viewer: Viewer, groups: readonly string[]) => groups.some((group) => viewer.groups.includes(group));

export function canLaunch(viewer: Viewer, access: FormAccess | undefined): boolean {
  return viewer.role === "admin" || access?.launch === undefined || inAny(viewer, access.launch);
}

/** Reads every job of the form (observers and approvers). */
export function canObserveAll(viewer: Viewer, access: FormAccess | undefined): boolean {
  return viewer.role === "admin" || (access !== undefined && (inAny(viewer, access.observe) || inAny(viewer, access.approve)));
}

export function canApprove(viewer: Viewer, access: FormAccess | undefined): boolean {
  return viewer.role === "admin" || (access !== undefined && inAny(viewer, access.approve));
}

/** What the viewer may do with a job they can see (the job page shows the buttons from this). */
export interface JobPermissions {
  approve: boolean;
  abort: boolean;
  /** Run it again (POST /api/jobs/ID/relaunch): its form still exists and the viewer may launch it. */
  relaunch: boolean;
}

export function jobPermissions(viewer: Viewer, job: Pick<JobView, "user">, form: StoredForm | null): JobPermissions {
  const access = form?.definition.access;
  const approve = canApprove(viewer, access);
  return { approve, abort: approve || job.user === viewer.username, relaunch: form !== null && canLaunch(viewer, access) };
}

/** The jobs the viewer may read, for queries over many (the job list, a form's trend). */
export async function jobScopeOf(viewer: Viewer): Promise<JobScope> {
  if (viewer.role === "admin") return ALL_JOBS;
  const forms = viewer.groups.length === 0 ? [] : await listForms();
  return {
    all: false,
    userId: viewer.id,
    formNames: forms.filter((form) => canObserveAll(viewer, form.definition.access)).map((form) => form.name),
  };
}

function canSeeJob(viewer: Viewer, job: JobView, form: StoredForm | null): boolean {
  return viewer.role === "admin" || job.user === viewer.username || canObserveAll(viewer, form?.definition.access);
}

export interface VisibleJob {
  job: JobView;
  permissions: JobPermissions;
}

/** The job and what the viewer may do with it, or null when there is none or they may not see it. */
export async function findVisibleJob(viewer: Viewer, jobId: number): Promise<VisibleJob | null> {
  const job = await getJobView(jobId);
  if (!job) return null;
  const form = await findForm(job.form);
  if (!canSeeJob(viewer, job, form)) return null;
  return { job, permissions: jobPermissions(viewer, job, form) };
}

/** The job if the viewer may see it; else 404, the same answer as for a job that does not exist. */
export async function requireVisibleJob(viewer: Viewer, jobId: number): Promise<VisibleJob> {
  const visible = await findVisibleJob(viewer, jobId);
  if (!visible) throw new DomainError("not_found", `no job ${jobId}`);
  return visible;
}

/**
 * A job the viewer sees (requireVisibleJob) that they may also approve or reject, or abort:
 * else 403 (they may read it, so nothing leaks), recorded in the audit trail as denied.
 */
export async function requireJobPermission(
  viewer: Viewer,
  { job, permissions }: VisibleJob,
  action: "job.approve" | "job.reject" | "job.abort",
): Promise<void> {
  if (action === "job.abort" ? permissions.abort : permissions.approve) return;
  await recordAudit({ actor: viewer.username, action, target: `job:${job.id}`, outcome: "denied" });
  throw new DomainError(
    "forbidden",
    action === "job.abort"
      ? `only whoever launched job ${job.id}, its form's approvers and admins may abort it`
      : `approving job ${job.id} needs the admin role or a group in its form's access.approve`,
  );
}

/** The form if the viewer may launch it, else null (also when there is none). */
export async function findLaunchableForm(viewer: Viewer, name: string): Promise<StoredForm | null> {
  const form = await findForm(name);
  return form && canLaunch(viewer, form.definition.access) ? form : null;
}

/** The form if the viewer may launch it; else 404, as for a form that does not exist. */
export async function requireLaunchableForm(viewer: Viewer, name: string): Promise<StoredForm> {
  const form = await findLaunchableForm(viewer, name);
  if (!form) throw new DomainError("not_found", `no form named "${name}"`);
  return form;
}

/**
 * A form whose runs the viewer asks about (trend, idempotence): visible when they may launch it
 * or read its jobs; the runs counted are then those of jobScopeOf. Else 404.
 */
export async function requireFormOfRuns(viewer: Viewer, name: string): Promise<{ form: StoredForm; scope: JobScope }> {
  const form = await findForm(name);
  if (!form || !(canLaunch(viewer, form.definition.access) || canObserveAll(viewer, form.definition.access))) {
    throw new DomainError("not_found", `no form named "${name}"`);
  }
  return { form, scope: await jobScopeOf(viewer) };
}

/** The forms the viewer may launch (the catalog). */
export async function launchableForms(viewer: Viewer): Promise<StoredForm[]> {
  return (await listForms()).filter((form) => canLaunch(viewer, form.definition.access));
}
