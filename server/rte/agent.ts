/**
 * The RTE agent: one socket.io link to the app, the jobs running here, and the spool between
 * them. It claims jobs up to its capacity, sends each job's items in order with at most one
 * batch in flight per job, and resends everything unacknowledged after a reconnect.
 */
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import {
  CONTRACT_VERSION,
  RTE_NAMESPACE,
  RteEvents,
  filesAnswerSchema,
  itemsAckSchema,
  jobCancelSchema,
  jobDispatchSchema,
  jobSecretsSchema,
  rteConfigSchema,
  RteFeatures,
  type ClaimAnswer,
  type RteState,
} from "../protocol/rte-messages";
import { openForJob } from "../security/seal";
import type { LogContext } from "../logging/logger";
import type { RteEnv } from "./env";
import { FileCache, readSharedFiles } from "./file-cache";
import { JobRun } from "./job-run";
import { RunningJobs } from "./leftovers";
import type { PlaybookUser } from "./playbook-user";
import { Spool } from "./spool";

export const RTE_VERSION = "0.1.0";
const ACK_TIMEOUT_MS = 15_000;
/** Items per `job:items` message, as JSON: well below the app's socket.io limit (16 MB). */
const BATCH_BYTES = 4 * 1024 * 1024;
/** Until the app says otherwise (`rte:config`); an app that never does expects 15 s. */
const HEARTBEAT_MS = 15_000;
/** A cancel that arrives before its job is kept this long, and the job then starts aborted. */
const EARLY_CANCEL_TTL_MS = 60_000;

export class RteAgent {
  private readonly socket: Socket;
  private readonly spool: Spool;
  private readonly cache: FileCache;
  private readonly running: RunningJobs;
  private readonly runs = new Map<number, JobRun>();
  private readonly inFlight = new Set<number>();
  private readonly earlyCancels = new Map<number, number>();
  private heartbeat: NodeJS.Timeout | null = null;
  draining = false;
  readonly counters = { claimed: 0, refused: 0, success: 0, failed: 0, aborted: 0 };

  private closing = false;

  constructor(
    private readonly env: RteEnv,
    private readonly token: string,
    private readonly log: (message: string, context?: LogContext) => void,
    private readonly playbookUser: PlaybookUser | null,
  ) {
    this.spool = new Spool(env.spoolDir);
    this.cache = new FileCache(env.cacheDir);
    this.running = new RunningJobs(path.join(env.workDir, "running"));
    const recovered = this.spool.recover();
    if (recovered.length > 0) log(`spool holds unacknowledged items of job(s) ${recovered.join(", ")}: they will be resent`);
    this.socket = io(new URL(RTE_NAMESPACE, env.APP_URL).toString(), {
      auth: {
        v: CONTRACT_VERSION,
        token,
        instanceId: env.RTE_INSTANCE_ID,
        version: RTE_VERSION,
        capacity: env.RTE_MAX_JOBS,
        ...(env.runnerName !== null ? { runner: env.runnerName } : {}),
        features: [RteFeatures.heartbeatInterval],
      },
      transports: ["websocket"],
      reconnectionDelay: 500,
      reconnectionDelayMax: 5_000,
    });
    this.wireSocket();
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  get runningCount(): number {
    return this.runs.size;
  }

  get spooledItems(): number {
    return this.spool.pendingCount();
  }

  private wireSocket(): void {
    this.socket.on("connect", () => {
      this.log(`connected to ${this.env.APP_URL} as instance ${this.env.RTE_INSTANCE_ID}`);
      this.sendState();
      this.inFlight.clear();
      for (const jobId of this.spool.jobIds()) this.pump(jobId);
    });
    this.socket.on("disconnect", (reason) => {
      this.log(`disconnected (${reason}); running playbooks continue, output is spooled`);
      // socket.io-client does not reconnect by itself after the server closed the socket (an
      // app restart or shutdown does that): without this, the runner would stay away for good.
      if (reason === "io server disconnect") this.reconnectLater(1_000);
    });
    this.socket.on("connect_error", (error) => {
      this.log(`cannot connect to ${this.env.APP_URL}: ${error.message}`);
      // A refusal by the app's handshake check is not retried by socket.io-client either.
      // Refused credentials are retried slowly: an admin may fix them (rotate, re-approve).
      if (!this.socket.active) this.reconnectLater(/token|revoked|rejected|pending|belongs/.test(error.message) ? 30_000 : 2_000);
    });
    this.socket.on(RteEvents.dispatch, (payload: unknown, ack?: (answer: ClaimAnswer) => void) => {
      const answer = this.claim(payload);
      if (typeof ack === "function") ack(answer);
    });
    this.socket.on(RteEvents.closing, (payload: unknown) => {
      const reason = typeof payload === "object" && payload && "reason" in payload ? String(payload.reason) : "no reason given";
      this.log(`the app closed this runner's link: ${reason}`);
    });
    this.socket.on(RteEvents.cancel, (payload: unknown) => {
      const parsed = jobCancelSchema.safeParse(payload);
      if (!parsed.success) return;
      const run = this.runs.get(parsed.data.jobId);
      if (run) run.cancel();
      else this.earlyCancels.set(parsed.data.jobId, Date.now());
    });
    // The app derives the interval from its heartbeat timeout: a fixed 15 s would have a
    // shorter timeout abandon this runner's healthy jobs.
    this.socket.on(RteEvents.config, (payload: unknown) => {
      const parsed = rteConfigSchema.safeParse(payload);
      if (parsed.success) this.startHeartbeat(parsed.data.heartbeatSeconds * 1000);
    });
    this.startHeartbeat(HEARTBEAT_MS);
  }

  private startHeartbeat(intervalMs: number): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = setInterval(
      () => {
        if (this.socket.connected) this.sendState();
        const now = Date.now();
        for (const [jobId, at] of this.earlyCancels) if (now - at > EARLY_CANCEL_TTL_MS) this.earlyCancels.delete(jobId);
      },
      Math.max(1_000, intervalMs),
    );
    this.heartbeat.unref();
  }

  private reconnectLater(delayMs: number): void {
    setTimeout(() => {
      if (!this.closing && !this.socket.connected && !this.socket.active) this.socket.connect();
    }, delayMs);
  }

  private state(): RteState {
    return {
      v: CONTRACT_VERSION,
      running: [...this.runs.keys()],
      // Only jobs with items still to deliver: a recovered job whose items are all acknowledged
      // is not "held" here, and the app must be free to abandon it.
      spooled: this.spool.jobIds().filter((id) => this.spool.pending(id).length > 0),
      capacity: this.env.RTE_MAX_JOBS,
      draining: this.draining,
    };
  }

  private sendState(): void {
    this.socket.emit(RteEvents.state, this.state());
  }

  private claim(payload: unknown): ClaimAnswer {
    const parsed = jobDispatchSchema.safeParse(payload);
    if (!parsed.success) {
      this.counters.refused++;
      return { claimed: false, reason: "version", message: `job message does not match contract v${CONTRACT_VERSION}` };
    }
    const job = parsed.data;
    if (this.runs.has(job.jobId)) return { claimed: true };
    if (this.spool.jobIds().includes(job.jobId)) {
      return { claimed: false, reason: "duplicate", message: `job ${job.jobId} already ran on this runner` };
    }
    if (this.draining) return this.refuse("stopping", "runner is draining and claims no new jobs");
    if (this.runs.size >= this.env.RTE_MAX_JOBS)
      return this.refuse("full", `runner is full (${this.runs.size}/${this.env.RTE_MAX_JOBS} jobs)`);
    let secrets;
    try {
      secrets = jobSecretsSchema.parse(JSON.parse(openForJob(this.token, job.jobId, job.sealed)));
    } catch (error) {
      return this.refuse("secrets", `secrets cannot be opened: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.counters.claimed++;
    this.spool.open(job.jobId);
    const startCancelled = this.earlyCancels.delete(job.jobId);
    const run = new JobRun(
      job,
      secrets,
      {
        env: this.env,
        cache: this.cache,
        fetchFiles: (hashes) =>
          this.env.RTE_FILES === "local" ? readSharedFiles(job.sourceDir, job.manifest, hashes) : this.fetchFiles(job.jobId, hashes),
        emit: (items) => {
          for (const item of items) if (item.kind === "end") this.counters[item.status]++;
          this.spool.append(job.jobId, items);
          this.pump(job.jobId);
        },
        log: this.log,
        running: this.running,
        playbookUser: this.playbookUser,
      },
      startCancelled,
    );
    this.runs.set(job.jobId, run);
    this.log(`job ${job.jobId}: claimed (${this.runs.size}/${this.env.RTE_MAX_JOBS} running)`, { jobId: job.jobId });
    void run.finished.finally(() => {
      this.runs.delete(job.jobId);
      this.log(`job ${job.jobId}: finished`, { jobId: job.jobId });
      if (this.socket.connected) this.sendState();
    });
    return { claimed: true };
  }

  private refuse(reason: "full" | "stopping" | "secrets", message: string): ClaimAnswer {
    this.counters.refused++;
    return { claimed: false, reason, message };
  }

  private async fetchFiles(jobId: number, hashes: string[]): Promise<Map<string, Buffer>> {
    const raw: unknown = await this.socket.timeout(60_000).emitWithAck(RteEvents.files, { v: CONTRACT_VERSION, jobId, hashes });
    const answer = filesAnswerSchema.parse(raw);
    if (answer.error) throw new Error(`the app refused the job files: ${answer.error}`);
    return new Map(answer.files.map((f) => [f.sha256, Buffer.from(f.contentBase64, "base64")]));
  }

  /** Sends the job's next pending batch unless one is already in flight. */
  private pump(jobId: number): void {
    if (!this.socket.connected || this.inFlight.has(jobId)) return;
    const items = this.spool.nextBatch(jobId, 500, BATCH_BYTES);
    if (items.length === 0) return;
    this.inFlight.add(jobId);
    this.socket
      .timeout(ACK_TIMEOUT_MS)
      .emitWithAck(RteEvents.items, { v: CONTRACT_VERSION, jobId, items })
      .then((raw: unknown) => {
        const ack = itemsAckSchema.parse(raw);
        if (ack.drop) {
          this.log(`job ${jobId}: the app does not accept items for it; dropping its spool`, { jobId });
          this.spool.drop(jobId);
        } else {
          this.spool.acknowledge(jobId, ack.acked);
        }
      })
      .catch((error: unknown) => this.log(`job ${jobId}: batch not acknowledged (${String(error)}); it stays spooled`, { jobId }))
      .finally(() => {
        this.inFlight.delete(jobId);
        // Only a live socket resends: after a disconnect, "connect" pumps every spooled job.
        if (this.socket.connected) setImmediate(() => this.pump(jobId));
      });
  }

  /**
   * SIGTERM: stop claiming, let running playbooks finish up to the drain limit (cancel the rest),
   * flush the spool, say goodbye, close.
   */
  async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    this.log(`draining: ${this.runs.size} job(s) running, waiting up to ${this.env.RTE_DRAIN_SECONDS}s`);
    if (this.socket.connected) this.sendState();
    const deadline = Date.now() + this.env.RTE_DRAIN_SECONDS * 1000;
    while (this.runs.size > 0 && Date.now() < deadline) await sleep(200);
    for (const run of this.runs.values()) run.cancel();
    await Promise.all([...this.runs.values()].map((r) => r.finished));
    const flushDeadline = Date.now() + 10_000;
    while (this.spool.pendingCount() > 0 && this.socket.connected && Date.now() < flushDeadline) await sleep(100);
    if (this.socket.connected) {
      await this.socket
        .timeout(2_000)
        .emitWithAck(RteEvents.leaving, { v: CONTRACT_VERSION, reason: "drained" })
        .catch(() => undefined);
    }
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.closing = true;
    this.socket.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
