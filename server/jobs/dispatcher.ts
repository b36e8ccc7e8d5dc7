/**
 * The dispatch loop of one app node. Every second (and at once when a job is launched) it:
 * - ends queued jobs someone asked to abort (dispatched or not);
 * - puts back in the queue jobs whose dispatch nobody answered (the node that sent it died);
 * - fails jobs that waited in the queue longer than RTE_QUEUE_MINUTES;
 * - sends queued jobs to a connected, non-full instance of their runner held by THIS node
 *   that offers the job's environment (any node may have launched the job: the database is
 *   the queue, so no job waits on a particular node's memory);
 * - sends `cancel` for aborted jobs running on instances this node holds;
 * - abandons running jobs whose runner's heartbeat is older than the heartbeat timeout.
 *
 * A job is taken with a conditional update (queued and not yet dispatched -> dispatched), so
 * two nodes never send the same job; a refused or unanswered dispatch puts it back. Every rule
 * reads only the database, so each queued job reaches running or a final status even when the
 * node that dispatched it is gone: no job stays queued forever.
 */
import {
  findJobPlacements,
  listJobsQueuedBefore,
  listJobsToDispatch,
  listQueuedJobsToAbort,
  listRunningJobsOnInstance,
  listRunningJobsToCancel,
  markJobDispatched,
  returnJobToQueue,
  returnUnansweredDispatches,
  type JobWithForm,
} from "../data/jobs";
import { findRunnerLoad, listInstancesSilentSince } from "../data/runners";
import type { RteHub, RunnerLink } from "../hub/rte-hub";
import {
  CONTRACT_VERSION,
  DEFAULT_ENVIRONMENT,
  PREVIEW_CONTRACT_VERSION,
  RteEvents,
  claimAnswerSchema,
  type JobDispatch,
  type JobSecrets,
} from "../protocol/rte-messages";
import { uploadFileVars } from "../forms/uploads";
import { splitSecretExtravars } from "../forms/values";
import { CredentialResolveError, resolveJobSecrets } from "../credentials/resolve";
import { sealForJob } from "../security/seal";
import { silentAfterSeconds } from "./heartbeat";
import { environmentWaitReason, jobEnvironmentName, jobEnvironmentOn, offersEnvironment } from "./job-environment";
import { openJobSecrets } from "./job-secrets";
import { isFinalStatus, type JobLifecycle } from "./lifecycle";
import { manifestSchema } from "./manifest-schema";
import { planOf } from "./plan";
import { loggerFor, maskInLogs } from "../logging/logger";

const log = loggerFor({ component: "dispatcher" });

/** Every string in a value (the password values and credentials a dispatch holds in clear). */
function stringsIn(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, into);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) stringsIn(v, into);
  return into;
}

export interface DispatcherOptions {
  queueMinutes: number;
  heartbeatTimeoutSeconds: number;
}

/** How long the sending node waits for a runner's claim answer before it puts the job back. */
export const CLAIM_TIMEOUT_MS = 10_000;
/**
 * A dispatch still unanswered this much later than the claim timeout is one whose sending node
 * died before it could put the job back (or the answer is lost): any node puts it back. The
 * margin keeps this clear of the sending node's own timeout, and of clock skew between nodes.
 */
export const UNANSWERED_DISPATCH_MS = CLAIM_TIMEOUT_MS + 10_000;

export class Dispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private again = false;
  private readonly cancelSent = new Map<number, number>();

  constructor(
    private readonly hub: RteHub,
    private readonly jobs: JobLifecycle,
    private readonly options: DispatcherOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), 1_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Runs a pass now, or right after the current one. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.pass()
      .catch((error: unknown) => log().error({ err: error }, "pass failed"))
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async pass(): Promise<void> {
    await this.abortQueued();
    await this.returnUnansweredDispatches();
    await this.expireQueue();
    await this.dispatchQueued();
    await this.sendCancels();
    await this.reapSilentRunners();
  }

  private async dispatchQueued(): Promise<void> {
    const queued = await listJobsToDispatch(50);
    // Why a runner's jobs of an environment wait, worked out once per runner and environment per pass.
    const waitReasons = new Map<string, string | null>();
    for (const job of queued) {
      // Only an instance that offers the job's environment (server/jobs/job-environment.ts).
      const environment = jobEnvironmentName(job);
      const link = this.hub.availableLinks(job.runnerId!).find((l) => offersEnvironment(l, environment));
      if (!link) {
        const key = `${job.runnerId!}\n${environment}`;
        let reason = waitReasons.get(key);
        if (reason === undefined) waitReasons.set(key, (reason = await this.waitReason(job.runnerId!, environment)));
        if (reason && reason !== job.statusReason) await this.jobs.explainWait(job.id, reason);
        continue;
      }
      const dispatchedAt = await markJobDispatched(job.id, link.instanceId, jobEnvironmentOn(link, environment));
      if (!dispatchedAt) continue;
      link.running.add(job.id);
      void this.send(link, job, dispatchedAt).catch((error: unknown) =>
        log().error({ err: error, jobId: job.id, runner: link.runnerName, instance: link.instanceId }, `job ${job.id}: dispatch failed`),
      );
    }
  }

  /**
   * Queued jobs with the abort flag end aborted, also while a dispatch of theirs is unanswered:
   * a runner that claims one anyway is told to cancel it (see send() and RteHub).
   */
  private async abortQueued(): Promise<void> {
    for (const id of await listQueuedJobsToAbort()) {
      await this.jobs.transition(id, "aborted", { statusReason: "aborted while queued" }, ["queued"]);
    }
  }

  /**
   * A job stays dispatched only until its claim answer: the sending node puts it back after
   * CLAIM_TIMEOUT_MS, but a node that died (or was frozen) in between never does, and nothing
   * else would send the job again. So any node puts back a dispatch unanswered for longer.
   * Should the runner have claimed it after all, its state report or first item makes the job
   * its own again before anyone else takes it, or it is told to cancel (RteHub).
   */
  private async returnUnansweredDispatches(): Promise<void> {
    for (const job of await returnUnansweredDispatches(new Date(Date.now() - UNANSWERED_DISPATCH_MS))) {
      log().warn(
        { jobId: job.id, instance: job.instanceId ?? undefined },
        `job ${job.id}: its dispatch to instance ${job.instanceId ?? "?"} was not answered within ${UNANSWERED_DISPATCH_MS / 1000} s; back in the queue`,
      );
      this.kick();
    }
  }

  /**
   * Why a runner's queued jobs of an environment wait. Read from the database, not this node's
   * links: another node may hold the runner's connections.
   */
  private async waitReason(runnerId: string, environment: string): Promise<string | null> {
    const runner = await findRunnerLoad(runnerId);
    if (!runner) return null;
    const instances = runner.connectedInstances;
    if (instances.length === 0) return `waiting for runner ${runner.name}: no instance is connected`;
    const unoffered = environmentWaitReason(runner.name, environment, instances);
    if (unoffered) return unoffered;
    if (instances.every((i) => i.runningJobs >= i.capacity)) {
      return `waiting for runner ${runner.name}: all ${instances.length} instance(s) are busy`;
    }
    return `waiting for runner ${runner.name}`;
  }

  /** Sends the job; the password values it opens are masked in the logs while it holds them. */
  private async send(link: RunnerLink, job: JobWithForm, dispatchedAt: Date): Promise<void> {
    const releases: (() => void)[] = [];
    try {
      await this.sendJob(link, job, dispatchedAt, (values) => releases.push(maskInLogs(stringsIn(values))));
    } finally {
      for (const release of releases) release();
    }
  }

  private async sendJob(link: RunnerLink, job: JobWithForm, dispatchedAt: Date, holding: (secretValues: unknown) => void): Promise<void> {
    const jobLog = log().child({ jobId: job.id, runner: link.runnerName, instance: link.instanceId });
    const putBack = async (why: string) => {
      link.running.delete(job.id);
      jobLog.warn(`job ${job.id} not claimed by ${link.runnerName}/${link.instanceId}: ${why}`);
      await returnJobToQueue(job.id, { instanceId: link.instanceId, dispatchedAt });
    };
    // Everything it runs was frozen at launch: the form may have changed since (server/jobs/plan.ts).
    const manifest = manifestSchema.parse(job.manifest);
    const { plan, definition: form } = planOf({ ...job, manifest, runnerName: link.runnerName });
    // Password values are in the sealed column; a job launched before they were kept apart
    // still has them among its extravars (see sealLegacyPasswordValues).
    const { visible: extravars, hidden: legacy } = splitSecretExtravars(form, (job.extravars ?? {}) as Record<string, unknown>);
    let hidden: Record<string, unknown>;
    try {
      hidden = { ...legacy, ...(job.secretExtravars ? openJobSecrets(job.id, job.secretExtravars) : {}) };
    } catch (error) {
      jobLog.error({ err: error }, `job ${job.id}: its password values cannot be opened`);
      link.running.delete(job.id);
      const reason = "its password values cannot be decrypted (see the server log): was ENCRYPTION_SECRET changed since the launch?";
      await this.jobs.transition(job.id, "failed", { statusReason: reason }, ["queued"]);
      return;
    }
    holding(hidden);
    // Password values and the form's credentials travel sealed; on the runner they land in the
    // hidden extravars file (always deleted after the run: keepExtravars keeps only the visible
    // one), on stdin (vault password) and in a 0600 key file inside the job folder (ssh).
    // Resolved now, not at launch: a credential replaced while the job waited is used as it is now.
    let secrets: JobSecrets;
    try {
      secrets = await resolveJobSecrets(form.credentials, hidden);
    } catch (error) {
      if (!(error instanceof CredentialResolveError)) {
        await putBack("its credentials could not be read");
        throw error;
      }
      link.running.delete(job.id);
      await this.jobs.transition(job.id, "failed", { statusReason: error.message }, ["queued"]);
      return;
    }
    holding(secrets);
    // A preview is a v2 dispatch: a runner that does not know previews refuses it (contract
    // version) instead of dropping the unknown field and running the playbook for real.
    const preview = job.kind === "preview";
    const environment = jobEnvironmentName(job);
    // Uploaded files: the RTE gives the playbook their absolute path in the job folder.
    const fileVars = uploadFileVars(manifest);
    const message: JobDispatch = {
      v: preview ? PREVIEW_CONTRACT_VERSION : CONTRACT_VERSION,
      ...(preview ? { preview: true } : {}),
      jobId: job.id,
      playbook: plan.playbook,
      inventories: plan.inventories,
      manifest,
      extravars,
      options: plan.options,
      sealed: sealForJob(link.token, job.id, JSON.stringify(secrets)),
      sourceDir: plan.sourceDir,
      ...(Object.keys(fileVars).length > 0 ? { fileVars } : {}),
      // Absent for `default`: the only environment of an RTE that does not know the field.
      ...(environment !== DEFAULT_ENVIRONMENT ? { environment } : {}),
    };
    let raw: unknown;
    jobLog.debug(`job ${job.id} dispatched to ${link.runnerName}/${link.instanceId}`);
    try {
      raw = await link.socket.timeout(CLAIM_TIMEOUT_MS).emitWithAck(RteEvents.dispatch, message);
    } catch {
      return putBack("no answer in time");
    }
    const answer = claimAnswerSchema.safeParse(raw);
    if (!answer.success) return putBack("malformed claim answer");
    // "duplicate": the runner ran this job already (an earlier dispatch whose answer was lost)
    // and still holds its items in its spool; they end the job, as a claim's would.
    if (!answer.data.claimed && answer.data.reason !== "duplicate") {
      if (answer.data.reason === "full" || answer.data.reason === "stopping") return putBack(answer.data.message);
      link.running.delete(job.id);
      const reason = `runner ${link.runnerName} refused the job: ${answer.data.message}`;
      await this.jobs.transition(job.id, "failed", { statusReason: reason }, ["queued"]);
      return;
    }
    if (await this.jobs.claimed(job.id, link.instanceId)) return;
    // No longer queued for this instance: aborted or timed out while the answer was on its way
    // (or already ended by the runner's own end item). The app ended it, so the run must stop.
    const [now] = await findJobPlacements([job.id]);
    if (now && isFinalStatus(now.status) && !now.endStored) {
      jobLog.warn(`job ${job.id} ended (${now.status}) before ${link.runnerName}/${link.instanceId} claimed it: cancelling it there`);
      link.socket.emit(RteEvents.cancel, { v: CONTRACT_VERSION, jobId: job.id });
    }
  }

  private async sendCancels(): Promise<void> {
    const aborting = await listRunningJobsToCancel();
    const now = Date.now();
    for (const job of aborting) {
      if (!job.runnerId || !job.instanceId) continue;
      const link = this.hub.linkFor(job.runnerId, job.instanceId);
      // Resent every 10 s until the job ends: a cancel lost with a dropped socket is retried.
      if (!link || now - (this.cancelSent.get(job.id) ?? 0) < 10_000) continue;
      this.cancelSent.set(job.id, now);
      link.socket.emit(RteEvents.cancel, { v: CONTRACT_VERSION, jobId: job.id });
    }
    for (const id of this.cancelSent.keys()) if (!aborting.some((j) => j.id === id)) this.cancelSent.delete(id);
  }

  private async expireQueue(): Promise<void> {
    const cutoff = new Date(Date.now() - this.options.queueMinutes * 60_000);
    // Counted from queuedAt whether a dispatch is unanswered or not: a runner that claims the
    // job after it failed is told to cancel it.
    for (const id of await listJobsQueuedBefore(cutoff)) {
      const reason = `no runner took the job within ${this.options.queueMinutes} minute(s) (RTE_QUEUE_MINUTES): its runner was full or disconnected`;
      await this.jobs.transition(id, "failed", { statusReason: reason }, ["queued"]);
    }
  }

  /**
   * Heartbeats are per instance: one runner may have several, and a dead instance's jobs must
   * end even while its siblings keep the runner itself alive.
   */
  private async reapSilentRunners(): Promise<void> {
    const timeout = this.options.heartbeatTimeoutSeconds;
    const now = Date.now();
    for (const instance of await listInstancesSilentSince(new Date(now - timeout * 1000))) {
      // An older RTE keeps its fixed 15 s heartbeat whatever the timeout: give it the time that needs.
      if (instance.lastSeenAt.getTime() >= now - silentAfterSeconds(timeout, instance.heartbeatMs) * 1000) continue;
      for (const id of await listRunningJobsOnInstance(instance.runnerId, instance.instanceId)) {
        const reason = `runner ${instance.runnerName} (${instance.instanceId}) sent no heartbeat since ${instance.lastSeenAt.toISOString()}`;
        await this.jobs.transition(id, "abandoned", { statusReason: reason }, ["running"]);
      }
    }
  }
}
