/**
 * The browser's view of the REST + socket.io contract in docs/api.md.
 * Kept in one module so every hook and component agrees on the shapes; the recap, comparison
 * and trend shapes are shared with the server (type-only imports, nothing of the server ends
 * up in the bundle). The job and its output are the /ui socket contract's
 * (server/protocol/ui-messages.ts), which the REST API returns too.
 */
import type { JobStatus, JobView, OutputChunk } from "@/server/protocol/ui-messages";
import type { RunnerView } from "@/server/data/runners";
import type { CredentialView } from "@/server/credentials/store";
import type { SourceView } from "@/server/sources/sources";
import type { SyncResult } from "@/server/sources/sync";
import type { UserView } from "@/server/data/users";
import type { AuditEventView } from "@/server/data/audit";
import type { RecapComparison, RunTrend } from "@/server/recap/compare";
import type { IdempotenceReport } from "@/server/recap/idempotence";

export type { Recap, RecapHostRow, RecapStatus, RecapTaskTiming, HostCounter } from "@/server/recap/types";
export type { HostComparison, RecapComparison, RunDuration, HostFailureRate, TaskTimingComparison } from "@/server/recap/compare";
export type { IdempotenceHost, IdempotenceTask } from "@/server/recap/idempotence";
// A plain constant in a module without imports: safe to bundle for the browser.
export { HOST_COUNTERS } from "@/server/recap/types";

export type Role = "admin" | "user";

export interface User {
  id: string;
  username: string;
  role: Role;
}

/** What the signed-in user may do with a job they see (GET /api/jobs/ID `permissions`). */
export interface JobPermissions {
  approve: boolean;
  abort: boolean;
  /** Run it again: its form exists and the user may launch it. */
  relaunch: boolean;
}

/** A field as the form page gets it (the same definition the server's rules read). */
import type { PublicField } from "@/server/forms/public-view";
export type FormField = PublicField;
export type { FieldOption, FieldType } from "@/server/form-rules/fields";

export interface FormSummary {
  name: string;
  title: string;
  /** Markdown. */
  description: string;
  category: string | null;
  fields: FormField[];
}

export type RunOptionName = "check" | "diff" | "limit" | "tags" | "verbosity";

/** The form's own run settings: the defaults of the options a user may change at launch. */
export interface RunDefaults {
  check: boolean;
  diff: boolean;
  limit: string;
  tags: string[];
  verbosity: number;
}

/** Run options sent with a launch: only those the form lists in `launchOptions`. */
export type RunOptions = Partial<Omit<RunDefaults, "limit"> & { limit: string }>;

/** One of the runners a form lets its launcher choose (`runners:` in form.yaml), with its state now. */
export interface RunnerChoice {
  name: string;
  /** approved (takes jobs), pending, rejected, revoked, or unknown. */
  status: string;
  connected: boolean;
}

export interface FormDetail extends FormSummary {
  playbook: string;
  launchOptions: RunOptionName[];
  runDefaults: RunDefaults;
  requiresApproval: boolean;
  /** The runners the launcher chooses from; null when the form offers no choice. */
  runners: RunnerChoice[] | null;
}

export type { JobStatus, OutputChunk } from "@/server/protocol/ui-messages";

/** Statuses after which nothing about the job changes any more. */
export const FINAL_STATUSES: readonly JobStatus[] = ["success", "failed", "aborted", "abandoned", "rejected"];
/** Statuses in which the job can still be aborted. */
export const ABORTABLE_STATUSES: readonly JobStatus[] = ["approval", "queued", "running"];

export function isFinalStatus(status: JobStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

export type { FieldValue as FormValue } from "@/server/form-rules/values";

/** The job as the API and the /ui socket carry it (the server's JobView is checked against it). */
export type Job = JobView;
export type { JobFileValue } from "@/server/forms/uploads";

/** `-created`: newest first (the API's default); `created`: oldest first. */
export type JobListSort = "-created" | "created";

/** The query of GET /api/jobs (docs/api.md, "Jobs"); `from` and `to` are ISO 8601 timestamps. */
export interface JobListQuery {
  status?: readonly JobStatus[];
  form?: string;
  user?: string;
  runner?: string;
  from?: string;
  to?: string;
  sort?: JobListSort;
  cursor?: string;
  limit?: number;
}

/** One page of GET /api/jobs: a cursor for the page after it and for the page before it. */
export interface JobPage {
  jobs: Job[];
  nextCursor: string | null;
  prevCursor: string | null;
}

export type { JobProgress } from "@/server/jobs/progress";

export type { OutputLine, OutputMarker, OutputMarkerKind, OutputSearch, OutputTaskIndex, OutputWindow } from "@/server/jobs/output-types";

export interface OutputPage {
  chunks: OutputChunk[];
  /** Seq of the last chunk of this page (the request's `after` when it is empty). */
  lastSeq: number;
  /** The job is final and this page holds the rest of its output. */
  done: boolean;
}

export interface ApiErrorBody {
  error: {
    code: string;
    message: string;
    fields?: Record<string, string>;
  };
}

/** GET /api/jobs/ID/compare/OTHER (or /previous): first is the older run when comparing with the previous one. */
/** GET /api/jobs/ID/artifacts: what the playbook set with set_stats. */
export interface JobArtifacts {
  artifacts: Record<string, unknown>;
  hosts: Record<string, Record<string, unknown>>;
  error: string | null;
}

export interface JobComparison {
  first: ComparedJob;
  second: ComparedJob;
  /** The run options in which the two runs differ. */
  differences: OptionDifference[];
  /** set_stats keys whose values differ; null when either run's are not known. */
  artifacts: { key: string; first: unknown; second: unknown }[] | null;
  comparison: RecapComparison;
}

/** How a run was run (server/jobs/run-kind.ts). */
export interface RunOptionsView {
  playbook: string;
  tags: string[];
  skipTags: string[];
  limit: string | null;
  check: boolean;
  diff: boolean;
  verbosity: number;
  environment: string | null;
  valuesHash: string;
}

export interface OptionDifference {
  option: keyof RunOptionsView;
  first: unknown;
  second: unknown;
}

export interface ComparedJob {
  id: number;
  status: JobStatus;
  finishedAt: string | null;
  /** null for a job launched before plans were kept. */
  options: RunOptionsView | null;
}

/** GET /api/forms/NAME/trend?last=N: the last N finished runs, oldest first. */
export type FormTrend = RunTrend & { form: string };

/** GET /api/forms/NAME/report?jobs=ID,...: runs side by side (server/jobs/report.ts). */
export type { RunReport, ReportJob, ReportTask, ReportHost, ReportArtifact, HostCounts } from "@/server/jobs/report";

/** GET /api/forms/NAME/idempotence?last=N: per task, how often it changed over the last N finished runs. */
export type FormIdempotence = IdempotenceReport & { form: string; last: number };

export type RunnerStatus = RunnerView["status"];

/** Your own profile, as GET and PATCH /api/auth/me return it. */
export type { Profile } from "@/server/auth/users";

/** An account as GET /api/users returns it (the server's view type). */
export type UserAccount = UserView;

/** The runner as GET /api/runners returns it (the server's view type). */
export type Runner = RunnerView;
/** One process (replica) of a runner, as the app last heard from it. */
export type RunnerInstance = RunnerView["instances"][number];
/** An Ansible environment a runner offers, as its RTE found it at start (docs/rte.md, "Environments"). */
export type RunnerEnvironment = RunnerView["environments"][number];

export const RUNNER_ACTIONS = ["approve", "reject", "revoke", "rotate", "default", "repin", "no-tls", "require-tls"] as const;
export type RunnerAction = (typeof RUNNER_ACTIONS)[number];

/** POST /api/runners/ID/ACTION; `token` only for rotate, and only this once. */
export interface RunnerActionResult {
  status: RunnerStatus;
  token?: string;
  isDefault?: boolean;
}

/** A stored credential as GET /api/credentials lists it: never its secret (the server's view type). */
export type Credential = CredentialView;
export type CredentialKind = CredentialView["kind"];
/** A Git source of forms (/api/sources) and the outcome of its Sync. */
export type Source = SourceView;
export type SourceSyncResult = SyncResult;

export type AuditEvent = AuditEventView;
export type AuditOutcome = AuditEventView["outcome"];
export type { AuditPage } from "@/server/data/audit";
export type { HostSummary, HostRunView, HostResult, HostDetailDrift } from "@/server/jobs/hosts";
/** A personal API token as listed (never its secret). */
export type { PersonalTokenView as PersonalToken } from "@/server/data/auth-tokens";

/** A group and its members (GET /api/groups). */
export type { GroupView as Group } from "@/server/data/groups";
export type { ScheduleView as Schedule } from "@/server/schedules/schedules";
