/**
 * A job's life: its statuses, the only transitions between them, and the one code path that
 * changes a job's status.
 *
 * Every change is one conditional update (`WHERE id AND status IN (allowed sources)`, see
 * transitionJob in server/data/jobs.ts): when two app nodes, or a runner's late end and the
 * reaper, race for one job, exactly one change applies, and only the one that applied tells
 * the job's followers. A final status never changes again.
 *
 * A lifecycle is built with the app node's job-update publisher and a way to wake its
 * dispatcher (server/index.ts; for route handlers, jobLifecycle() in server/runtime.ts), and
 * handed to the code that changes a job's status.
 */
import { DomainError } from "../errors";
import { audited, recordAudit } from "../audit/record";
import {
  createJob,
  markAbortRequested,
  setQueuedJobReason,
  setRunningJobStartedAt,
  transitionJob,
  type JobStatus,
  type JobTransitionFields,
  type JobView,
  type NewJob,
} from "../data/jobs";
import type { JobUpdatePublisher } from "../hub/job-updates";
import type { FinalStatus } from "../protocol/rte-messages";
import { requireJob } from "./access";
import { sealJobSecrets } from "./job-secrets";
import { enqueueJobNotifications, notifyEventOf } from "./notify";

/** From each status, the statuses a job may move to. A status with none is final. */
export const JOB_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  // An admin approves (queued) or rejects it; its launcher may abort it.
  approval: ["queued", "rejected", "aborted"],
  // A runner claims it (running), or it fails (its secrets cannot be read, the runner refuses
  // the claim, nobody takes it in time), or it is aborted before it reached a runner. The
  // runner's end can also find it still queued: the claim answer and the runner's item
  // batches are handled concurrently, so none of them is sure to be stored first.
  queued: ["running", "success", "failed", "aborted"],
  // The runner's end, or its silence (heartbeat timeout, restarted without the job).
  running: ["success", "failed", "aborted", "abandoned"],
  success: [],
  failed: [],
  aborted: [],
  abandoned: [],
  rejected: [],
};

export const JOB_STATUSES = Object.keys(JOB_TRANSITIONS) as JobStatus[];

/** Statuses from which a job may still be sent to a runner (and so needs its password values). */
const MAY_BE_DISPATCHED: readonly JobStatus[] = ["approval", "queued"];

/** Statuses after which nothing about the job changes any more. */
export const FINAL_STATUSES: readonly JobStatus[] = JOB_STATUSES.filter((status) => JOB_TRANSITIONS[status].length === 0);

export function isFinalStatus(status: JobStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

export function isAllowedTransition(from: JobStatus, to: JobStatus): boolean {
  return JOB_TRANSITIONS[from].includes(to);
}

/** Every status from which the table allows a move to `to`. */
export function statusesLeadingTo(to: JobStatus): JobStatus[] {
  return JOB_STATUSES.filter((from) => isAllowedTransition(from, to));
}

export interface JobLifecycleDeps {
  /** Tells every app node that a job has news. */
  publish: JobUpdatePublisher;
  /** Asks this node's dispatcher for a pass now, instead of at its next tick. */
  wakeDispatcher: () => void;
  /** A job moved to running (a runner took it) at `at`: for the metrics' launch-to-start latency. */
  onRunning?: (jobId: number, at: Date) => void;
  /** A job ended (a final move): its hosts are written from its recap (server/jobs/hosts.ts). */
  onFinished?: (jobId: number) => void;
}

export class JobLifecycle {
  constructor(private readonly deps: JobLifecycleDeps) {}

  /** Stores a new job: waiting for approval when its form requires it, else queued. */
  async create(job: NewJob, needsApproval: boolean): Promise<number> {
    const id = await createJob(
      needsApproval
        ? { ...job, status: "approval", statusReason: "waiting for an admin to approve it", queuedAt: null }
        : { ...job, status: "queued", statusReason: null, queuedAt: new Date() },
      sealJobSecrets,
    );
    if (!needsApproval) this.deps.wakeDispatcher();
    else await enqueueJobNotifications(id, "approval");
    return id;
  }

  /**
   * Moves a job to `to` from whichever status it is in, if the table allows that move (only
   * from `from`, when given). Returns whether the job moved; only then is the news published.
   * A `from` the table does not allow is a bug in the caller and throws.
   */
  async transition(jobId: number, to: JobStatus, fields: JobTransitionFields = {}, from?: readonly JobStatus[]): Promise<boolean> {
    return this.move(jobId, to, fields, from);
  }

  /**
   * A runner instance has the job: its claim answer, or (when that answer was lost) its state
   * report or its start item. Moves the job to running only while it is queued for that very
   * instance, so a runner answering a dispatch that was already taken back and sent elsewhere
   * does not get it.
   */
  async claimed(jobId: number, instanceId: string): Promise<boolean> {
    return this.move(jobId, "running", {}, ["queued"], instanceId);
  }

  /** The runner's start item: the playbook runs (on `instanceId`, when known). */
  async started(jobId: number, at: Date, instanceId?: string): Promise<void> {
    // The start item and the claim answer race: whichever is stored first moves the job to
    // running, and the start item brings the time either way.
    if (await this.move(jobId, "running", { startedAt: at }, ["queued"], instanceId)) return;
    if (await setRunningJobStartedAt(jobId, at)) this.announce(jobId);
  }

  /**
   * The runner's end item. A job already ended (abandoned by the app, say) stays as it is. A job
   * the runner cancelled itself because its drain ran out (`cancelledBy: "drain"`) is audited
   * (`job.drain-cancel`, by the runner): nobody asked for that abort.
   */
  async ended(
    jobId: number,
    end: {
      status: FinalStatus;
      exitCode: number | null;
      reason: string | null;
      at: Date;
      outputTruncated?: boolean;
      cancelledBy?: "request" | "drain";
      runner?: string;
    },
  ): Promise<boolean> {
    const fields: JobTransitionFields = { exitCode: end.exitCode, statusReason: end.reason, finishedAt: end.at };
    if (end.outputTruncated) fields.outputTruncated = true;
    const moved = await this.transition(jobId, end.status, fields, ["queued", "running"]);
    if (moved && end.cancelledBy === "drain") {
      await recordAudit({
        actor: end.runner ? `runner:${end.runner}` : null,
        action: "job.drain-cancel",
        target: `job:${jobId}`,
        outcome: "success",
        details: { reason: end.reason },
      });
    }
    return moved;
  }

  /** Why a queued job still waits (no instance connected, all busy), shown on the job. */
  async explainWait(jobId: number, reason: string): Promise<void> {
    if (await setQueuedJobReason(jobId, reason)) this.announce(jobId);
  }

  /** An admin's decision on a job waiting for approval: approved, it joins the queue; rejected, it ends. */
  async decide(jobId: number, approve: boolean, by: string, comment?: string | null): Promise<JobView> {
    const audit = {
      actor: by,
      action: approve ? "job.approve" : "job.reject",
      target: `job:${jobId}`,
      details: comment ? { comment } : {},
    } as const;
    return audited(audit, () => this.decideJob(jobId, approve, by, comment));
  }

  private async decideJob(jobId: number, approve: boolean, by: string, comment?: string | null): Promise<JobView> {
    const job = await requireJob(jobId);
    if (job.status !== "approval") throw new DomainError("conflict", `job ${jobId} is not waiting for approval (it is ${job.status})`);
    const note = comment ? `: ${comment}` : "";
    const decision = { decidedBy: by, decidedAt: new Date() };
    const moved = approve
      ? await this.transition(jobId, "queued", { ...decision, statusReason: `approved by ${by}${note}` }, ["approval"])
      : await this.transition(jobId, "rejected", { ...decision, statusReason: `rejected by ${by}${note}` }, ["approval"]);
    if (!moved) throw new DomainError("conflict", `job ${jobId} was decided by someone else in the meantime`);
    return requireJob(jobId);
  }

  /**
   * Aborts a job that has not ended. Waiting for approval it was never dispatched, so it ends
   * at once; queued or running, it gets the abort flag, which the dispatcher turns into an
   * abort (queued, whether a dispatch of it is unanswered or not: a runner that claims it late
   * is told to cancel) or a cancel sent to its runner (running).
   */
  async abort(jobId: number, by: string): Promise<JobView> {
    return audited({ actor: by, action: "job.abort", target: `job:${jobId}` }, () => this.abortJob(jobId, by));
  }

  private async abortJob(jobId: number, by: string): Promise<JobView> {
    const job = await requireJob(jobId);
    if (isFinalStatus(job.status)) throw new DomainError("conflict", `job ${job.id} already ended (${job.status})`);
    const reason = `aborted by ${by} while waiting for approval`;
    if (job.status === "approval" && (await this.transition(jobId, "aborted", { statusReason: reason }, ["approval"]))) {
      return requireJob(jobId);
    }
    // Also when it was approved in the meantime: by now it is queued.
    if (await markAbortRequested(jobId, ["queued", "running"])) this.announce(jobId);
    this.deps.wakeDispatcher();
    return requireJob(jobId);
  }

  private async move(
    jobId: number,
    to: JobStatus,
    fields: JobTransitionFields,
    from?: readonly JobStatus[],
    onInstance?: string,
  ): Promise<boolean> {
    const sources = from ?? statusesLeadingTo(to);
    const illegal = sources.filter((status) => !isAllowedTransition(status, to));
    if (illegal.length > 0) throw new Error(`job ${jobId}: ${illegal.join(", ")} -> ${to} is not a transition of the job lifecycle`);
    if (sources.length === 0) return false;
    const now = new Date();
    const stamps: JobTransitionFields = isFinalStatus(to) ? { finishedAt: now } : to === "queued" ? { queuedAt: now } : {};
    // Password values are kept (sealed) only while a dispatch may still need them.
    if (!MAY_BE_DISPATCHED.includes(to)) stamps.secretExtravars = null;
    if (!(await transitionJob(jobId, sources, to, { ...stamps, ...fields }, onInstance))) return false;
    this.announce(jobId);
    const event = notifyEventOf(to);
    // Only the move that won tells anyone; the deliveries' unique key holds even so.
    if (event) await enqueueJobNotifications(jobId, event);
    if (to === "queued") this.deps.wakeDispatcher();
    if (to === "running") this.deps.onRunning?.(jobId, now);
    if (isFinalStatus(to)) this.deps.onFinished?.(jobId);
    return true;
  }

  private announce(jobId: number): void {
    this.deps.publish({ jobId, output: false, status: true });
  }
}
