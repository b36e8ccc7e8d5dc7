/**
 * The RTE agent: one socket.io link to the app, the jobs running here, and the spool between
 * them. It claims jobs up to its capacity, sends each job's items in order with at most one
 * batch in flight per job, and resends everything unacknowledged after a reconnect.
 *
 * Outbound (the default) the link is a socket.io client connecting to APP_URL. Inbound the RTE
 * listens (INBOUND_SOCKET_PATH on its own HTTP(S) server) and the link is the socket of the app
 * that connected with a valid proof of this runner's token; the messages are the same.
 */
import type http from "node:http";
import path from "node:path";
import { Server as SocketServer, type Socket as ServerSocket } from "socket.io";
import { io, type Socket } from "socket.io-client";
import {
  CONTRACT_VERSION,
  DEFAULT_ENVIRONMENT,
  INBOUND_SOCKET_PATH,
  RTE_NAMESPACE,
  RteEvents,
  SUPPORTED_CONTRACT_VERSIONS,
  filesAnswerSchema,
  helloAnswerSchema,
  inboundAuthSchema,
  inventoryListSchema,
  itemsAckSchema,
  jobCancelSchema,
  jobDispatchSchema,
  jobSecretsSchema,
  rteConfigSchema,
  RteFeatures,
  type ClaimAnswer,
  type EnvironmentReport,
  type InventoryAnswer,
  type InventoryList,
  type JobDispatch,
  type RteEnvironments,
  type RteHandshake,
  type RteState,
} from "../protocol/rte-messages";
import { InboundProofChecker } from "../security/inbound-proof";
import { openForJob } from "../security/seal";
import type { LogContext } from "../logging/logger";
import type { RteEnv } from "./env";
import { defaultEnvironment, type RteEnvironment } from "./environments";
import { FileCache, readSharedFiles } from "./file-cache";
import { listInventory } from "./inventory-list";
import { JobRun } from "./job-run";
import { RunningJobs } from "./leftovers";
import type { PlaybookUser } from "./playbook-user";
import { RequirementsCache } from "./requirements-cache";
import { describeEviction, evictRequirements, type EvictionPolicy } from "./requirements-evict";
import type { Sandboxed } from "./sandbox";
import { Spool } from "./spool";

/** What the agent uses of its link: a socket.io client socket (outbound) or server-side socket (inbound). */
interface AgentLink {
  readonly connected: boolean;
  emit(event: string, ...args: unknown[]): unknown;
  timeout(ms: number): { emitWithAck(event: string, ...args: unknown[]): Promise<unknown> };
  on(event: string, listener: (...args: never[]) => void): unknown;
}

export const RTE_VERSION = "0.1.0";
const ACK_TIMEOUT_MS = 15_000;
/** Items per `job:items` message, as JSON: well below the app's socket.io limit (16 MB). */
const BATCH_BYTES = 4 * 1024 * 1024;
/** Until the app says otherwise (`rte:config`); an app that never does expects 15 s. */
const HEARTBEAT_MS = 15_000;
/** A cancel that arrives before its job is kept this long, and the job then starts aborted. */
const EARLY_CANCEL_TTL_MS = 60_000;
/** How often installed requirements are evicted (after the pass at start). */
const EVICTION_INTERVAL_MS = 3600 * 1000;

export class RteAgent {
  /** Outbound: the client socket to the app. */
  private readonly socket: Socket | null = null;
  /** The link messages go over: the outbound socket, or the inbound app's socket (null while none). */
  private link: AgentLink | null = null;
  /** Inbound: the link is usable once the app answered `rte:hello` (it listens from then on). */
  private linkReady = false;
  private inboundServer: SocketServer | null = null;
  private readonly spool: Spool;
  private readonly cache: FileCache;
  private readonly requirements: RequirementsCache;
  private readonly running: RunningJobs;
  private readonly runs = new Map<number, JobRun>();
  private readonly inFlight = new Set<number>();
  private readonly earlyCancels = new Map<number, number>();
  private heartbeat: NodeJS.Timeout | null = null;
  private eviction: NodeJS.Timeout | null = null;
  draining = false;
  readonly counters = { claimed: 0, refused: 0, success: 0, failed: 0, aborted: 0 };

  private closing = false;
  /** The probe's report, once it has ended (null before): sent on every connection from then on. */
  private environmentReports: EnvironmentReport[] | null = null;

  constructor(
    private readonly env: RteEnv,
    private readonly token: string,
    private readonly log: (message: string, context?: LogContext) => void,
    private readonly playbookUser: PlaybookUser | null,
    /** Playbooks run in a pid namespace of their own under bubblewrap, and with which /proc (sandbox.ts). */
    private readonly sandboxed: Sandboxed = false,
    /** The environments it offers (RTE_ENVIRONMENTS, environments.ts): a job names the one it runs in. */
    private readonly environments: readonly RteEnvironment[] = [defaultEnvironment(env.ANSIBLE_PLAYBOOK)],
  ) {
    this.spool = new Spool(env.spoolDir);
    this.cache = new FileCache(env.cacheDir);
    // Waiting for a lock longer than an install may take means its holder is gone.
    this.requirements = new RequirementsCache(env.requirementsDir, (env.RTE_REQUIREMENTS_TIMEOUT_SECONDS + 120) * 1000);
    this.running = new RunningJobs(path.join(env.workDir, "running"));
    const recovered = this.spool.recover();
    if (recovered.length > 0) log(`spool holds unacknowledged items of job(s) ${recovered.join(", ")}: they will be resent`);
    if (env.RTE_MODE === "outbound") {
      this.socket = io(new URL(RTE_NAMESPACE, env.APP_URL).toString(), {
        auth: this.handshake(),
        transports: ["websocket"],
        reconnectionDelay: 500,
        reconnectionDelayMax: 5_000,
      });
      this.link = this.socket as unknown as AgentLink;
      this.linkReady = true;
      this.wireSocket(this.socket);
    }
    this.startHeartbeat(HEARTBEAT_MS);
    this.startEviction();
  }

  /**
   * Evicts installed requirements (requirements-evict.ts) now and every hour: off the hot path (a
   * job only ever looks its entry up), one pass at a time, and never fatal (a pass that fails is
   * logged and the next one tries again).
   */
  private startEviction(): void {
    const policy: EvictionPolicy = {
      maxAgeMs: this.env.RTE_REQUIREMENTS_MAX_AGE_DAYS > 0 ? this.env.RTE_REQUIREMENTS_MAX_AGE_DAYS * 24 * 3600 * 1000 : null,
      maxBytes: this.env.RTE_REQUIREMENTS_MAX_BYTES,
    };
    if (policy.maxAgeMs === null && policy.maxBytes === null) return;
    let running = false;
    const pass = () => {
      if (running) return;
      running = true;
      evictRequirements(this.requirements, policy, { now: () => new Date() })
        .then((result) => {
          for (const line of describeEviction(result, policy)) this.log(line);
        })
        .catch((error: unknown) => this.log(`requirements cache: eviction failed: ${String(error)}`))
        .finally(() => (running = false));
    };
    setImmediate(pass);
    this.eviction = setInterval(pass, EVICTION_INTERVAL_MS);
    this.eviction.unref();
  }

  /** What this RTE tells the app about itself: the outbound `auth`, the inbound `rte:hello`. */
  private handshake(): RteHandshake {
    return {
      v: CONTRACT_VERSION,
      token: this.token,
      instanceId: this.env.RTE_INSTANCE_ID,
      version: RTE_VERSION,
      capacity: this.env.RTE_MAX_JOBS,
      ...(this.env.runnerName !== null ? { runner: this.env.runnerName } : {}),
      features: [RteFeatures.heartbeatInterval, RteFeatures.inventoryList, RteFeatures.environments],
    };
  }

  /**
   * The probe has ended (environment-probe.ts): the app learns the report now if the link is up,
   * else on the next connection (onLinkUp). The handshake no longer carries it, so the
   * connection never waits for the probe.
   */
  reportEnvironments(reports: readonly EnvironmentReport[]): void {
    this.environmentReports = [...reports];
    this.sendEnvironments();
  }

  private sendEnvironments(): void {
    if (this.environmentReports === null || !this.connected) return;
    const message: RteEnvironments = { v: CONTRACT_VERSION, environments: this.environmentReports };
    this.link?.emit(RteEvents.environments, message);
  }

  get connected(): boolean {
    return this.linkReady && (this.link?.connected ?? false);
  }

  /**
   * Inbound mode: listens for the app on the RTE's own HTTP(S) server. One app link at a time;
   * a newer authenticated connection replaces the older (the app reconnecting after a cut).
   */
  listenInbound(server: http.Server): void {
    const checker = new InboundProofChecker(this.token, this.env.RTE_RUNNER_NAME);
    const ioServer = new SocketServer(server, { path: INBOUND_SOCKET_PATH, serveClient: false, maxHttpBufferSize: 16 * 1024 * 1024 });
    this.inboundServer = ioServer;
    ioServer.of("/").use((_socket, next) => next(new Error(`connect to the ${RTE_NAMESPACE} namespace`)));
    const namespace = ioServer.of(RTE_NAMESPACE);
    namespace.use((socket, next) => {
      const parsed = inboundAuthSchema.safeParse(socket.handshake.auth);
      if (!parsed.success) return next(new Error("handshake must carry v, runner, ts, nonce and proof"));
      if (!SUPPORTED_CONTRACT_VERSIONS.includes(parsed.data.v)) {
        return next(
          new Error(`contract version mismatch: this runner speaks v${SUPPORTED_CONTRACT_VERSIONS.join(", v")}, the app v${parsed.data.v}`),
        );
      }
      if (parsed.data.runner !== this.env.RTE_RUNNER_NAME) {
        return next(new Error(`this is runner "${this.env.RTE_RUNNER_NAME}", not "${parsed.data.runner}"`));
      }
      const refused = checker.check(parsed.data);
      if (refused) {
        this.log(`refused a connection from ${socket.handshake.address}: ${refused}`);
        return next(new Error(refused));
      }
      next();
    });
    namespace.on("connection", (socket: ServerSocket) => void this.onInboundConnection(socket));
  }

  private async onInboundConnection(socket: ServerSocket): Promise<void> {
    const previous = this.link as ServerSocket | null;
    this.link = socket as unknown as AgentLink;
    this.linkReady = false;
    if (previous && previous !== socket) previous.disconnect(true);
    this.wireLinkEvents(socket as unknown as AgentLink);
    socket.on("disconnect", (reason) => {
      if (this.link === (socket as unknown as AgentLink)) {
        this.link = null;
        this.linkReady = false;
      }
      this.log(`the app's link from ${socket.handshake.address} closed (${reason}); running playbooks continue, output is spooled`);
    });
    let answer;
    try {
      answer = helloAnswerSchema.parse(await socket.timeout(15_000).emitWithAck(RteEvents.hello, this.handshake()));
    } catch (error) {
      this.log(`the app at ${socket.handshake.address} did not answer rte:hello (${String(error)}); closing its link`);
      socket.disconnect(true);
      return;
    }
    if (!answer.ok) {
      this.log(`the app refused this runner: ${answer.reason ?? "no reason given"}`);
      socket.disconnect(true);
      return;
    }
    if (this.link !== (socket as unknown as AgentLink) || !socket.connected) return;
    this.linkReady = true;
    this.log(`the app connected from ${socket.handshake.address} (inbound) as instance ${this.env.RTE_INSTANCE_ID}`);
    this.onLinkUp();
  }

  /** A link became usable: the app learns what this RTE runs and holds, and gets what is unacknowledged. */
  private onLinkUp(): void {
    this.sendState();
    this.sendEnvironments();
    this.inFlight.clear();
    for (const jobId of this.spool.jobIds()) this.pump(jobId);
  }

  get runningCount(): number {
    return this.runs.size;
  }

  get spooledItems(): number {
    return this.spool.pendingCount();
  }

  private wireSocket(socket: Socket): void {
    socket.on("connect", () => {
      this.log(`connected to ${this.env.APP_URL} as instance ${this.env.RTE_INSTANCE_ID}`);
      this.onLinkUp();
    });
    socket.on("disconnect", (reason) => {
      this.log(`disconnected (${reason}); running playbooks continue, output is spooled`);
      // socket.io-client does not reconnect by itself after the server closed the socket (an
      // app restart or shutdown does that): without this, the runner would stay away for good.
      if (reason === "io server disconnect") this.reconnectLater(1_000);
    });
    socket.on("connect_error", (error) => {
      this.log(`cannot connect to ${this.env.APP_URL}: ${error.message}`);
      // A refusal by the app's handshake check is not retried by socket.io-client either.
      // Refused credentials are retried slowly: an admin may fix them (rotate, re-approve).
      if (!socket.active) this.reconnectLater(/token|revoked|rejected|pending|belongs/.test(error.message) ? 30_000 : 2_000);
    });
    this.wireLinkEvents(socket as unknown as AgentLink);
  }

  /** What the app sends over a link, in either mode. */
  private wireLinkEvents(link: AgentLink): void {
    link.on(RteEvents.dispatch, (payload: unknown, ack?: (answer: ClaimAnswer) => void) => {
      const answer = this.claim(payload);
      if (typeof ack === "function") ack(answer);
    });
    link.on(RteEvents.inventory, (payload: unknown, ack?: (answer: InventoryAnswer) => void) => {
      void this.listInventory(payload).then((answer) => {
        if (typeof ack === "function") ack(answer);
      });
    });
    link.on(RteEvents.closing, (payload: unknown) => {
      const reason = typeof payload === "object" && payload && "reason" in payload ? String(payload.reason) : "no reason given";
      this.log(`the app closed this runner's link: ${reason}`);
    });
    link.on(RteEvents.cancel, (payload: unknown) => {
      const parsed = jobCancelSchema.safeParse(payload);
      if (!parsed.success) return;
      const run = this.runs.get(parsed.data.jobId);
      if (run) run.cancel();
      else this.earlyCancels.set(parsed.data.jobId, Date.now());
    });
    // The app derives the interval from its heartbeat timeout: a fixed 15 s would have a
    // shorter timeout abandon this runner's healthy jobs.
    link.on(RteEvents.config, (payload: unknown) => {
      const parsed = rteConfigSchema.safeParse(payload);
      if (parsed.success) this.startHeartbeat(parsed.data.heartbeatSeconds * 1000);
    });
  }

  private startHeartbeat(intervalMs: number): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = setInterval(
      () => {
        if (this.connected) this.sendState();
        const now = Date.now();
        for (const [jobId, at] of this.earlyCancels) if (now - at > EARLY_CANCEL_TTL_MS) this.earlyCancels.delete(jobId);
      },
      Math.max(1_000, intervalMs),
    );
    this.heartbeat.unref();
  }

  private reconnectLater(delayMs: number): void {
    setTimeout(() => {
      const socket = this.socket;
      if (socket && !this.closing && !socket.connected && !socket.active) socket.connect();
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
    if (this.connected) this.link?.emit(RteEvents.state, this.state());
  }

  private claim(payload: unknown): ClaimAnswer {
    const speaks = `this runner speaks contract v${SUPPORTED_CONTRACT_VERSIONS.join(", v")}`;
    const v = typeof payload === "object" && payload !== null && "v" in payload ? payload.v : undefined;
    if (typeof v !== "number" || !SUPPORTED_CONTRACT_VERSIONS.includes(v)) {
      this.counters.refused++;
      return {
        claimed: false,
        reason: "version",
        message: `the job is of contract ${typeof v === "number" ? `v${v}` : "no version"}; ${speaks}`,
      };
    }
    const parsed = jobDispatchSchema.safeParse(payload);
    if (!parsed.success) {
      this.counters.refused++;
      return {
        claimed: false,
        reason: "version",
        message: `the job message does not match contract v${v} (${parsed.error.issues[0]?.message}); ${speaks}`,
      };
    }
    const job = parsed.data;
    if (this.runs.has(job.jobId)) return { claimed: true };
    if (this.spool.jobIds().includes(job.jobId)) {
      return { claimed: false, reason: "duplicate", message: `job ${job.jobId} already ran on this runner` };
    }
    // The app sends a job only to an instance that reported its environment; one missing here
    // was renamed or removed since (RTE_ENVIRONMENTS is read at start): never another ansible.
    const environmentName = job.environment ?? DEFAULT_ENVIRONMENT;
    const environment = this.environments.find((e) => e.name === environmentName);
    if (!environment) {
      const offered = this.environments.map((e) => e.name).join(", ");
      return this.refuse("environment", `this runner has no environment "${environmentName}" (it offers ${offered})`);
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
          this.env.RTE_FILES === "local" ? this.localFiles(job, hashes) : this.fetchFiles({ jobId: job.jobId }, hashes),
        emit: (items) => {
          for (const item of items) if (item.kind === "end") this.counters[item.status]++;
          this.spool.append(job.jobId, items);
          this.pump(job.jobId);
        },
        log: this.log,
        running: this.running,
        playbookUser: this.playbookUser,
        sandboxed: this.sandboxed,
        environment,
        requirements: {
          cache: this.requirements,
          ansibleCore: this.environmentReports?.find((report) => report.name === environment.name)?.ansibleCore ?? null,
          python: this.environmentReports?.find((report) => report.name === environment.name)?.python ?? null,
        },
      },
      startCancelled,
    );
    this.runs.set(job.jobId, run);
    this.log(`job ${job.jobId}: claimed (${this.runs.size}/${this.env.RTE_MAX_JOBS} running)`, { jobId: job.jobId });
    void run.finished.finally(() => {
      this.runs.delete(job.jobId);
      this.log(`job ${job.jobId}: finished`, { jobId: job.jobId });
      this.sendState();
    });
    return { claimed: true };
  }

  /** `inventory:list`: a form's inventory read here (server/rte/inventory-list.ts), never on the app. */
  private async listInventory(payload: unknown): Promise<InventoryAnswer> {
    const parsed = inventoryListSchema.safeParse(payload);
    if (!parsed.success)
      return { ok: false, error: `the inventory request does not match the contract: ${parsed.error.issues[0]?.message}` };
    const request: InventoryList = parsed.data;
    if (this.draining) return { ok: false, error: "the runner is stopping" };
    const environmentName = request.environment ?? DEFAULT_ENVIRONMENT;
    const environment = this.environments.find((e) => e.name === environmentName);
    if (!environment) return { ok: false, error: `this runner has no environment "${environmentName}"` };
    const answer = await listInventory(request, {
      environment,
      requirements: {
        cache: this.requirements,
        ansibleCore: this.environmentReports?.find((report) => report.name === environment.name)?.ansibleCore ?? null,
        python: this.environmentReports?.find((report) => report.name === environment.name)?.python ?? null,
      },
      env: this.env,
      cache: this.cache,
      playbookUser: this.playbookUser,
      sandboxed: this.sandboxed,
      fetchFiles: (hashes) =>
        this.env.RTE_FILES === "local"
          ? readSharedFiles(request.sourceDir, request.manifest, hashes)
          : this.fetchFiles({ listId: request.listId }, hashes),
    });
    this.log(
      answer.ok
        ? `inventory ${request.inventory}: ${answer.hosts.length} host(s), ${answer.groups.length} group(s) listed`
        : `inventory ${request.inventory} could not be listed: ${answer.error}`,
    );
    return answer;
  }

  private refuse(reason: "full" | "stopping" | "secrets" | "environment", message: string): ClaimAnswer {
    this.counters.refused++;
    return { claimed: false, reason, message };
  }

  /**
   * RTE_FILES=local: the form's files from the shared folder; uploaded files (`fileVars`) are
   * not in it and come from the app, unless a form file has the same content.
   */
  private async localFiles(job: JobDispatch, hashes: string[]): Promise<Map<string, Buffer>> {
    const uploads = new Set(Object.values(job.fileVars ?? {}));
    const shared = new Set(job.manifest.filter((entry) => !uploads.has(entry.path)).map((entry) => entry.sha256));
    const fromApp = hashes.filter((hash) => !shared.has(hash));
    const fromFolder = hashes.filter((hash) => shared.has(hash));
    const files = fromFolder.length > 0 ? await readSharedFiles(job.sourceDir, job.manifest, fromFolder) : new Map<string, Buffer>();
    // Edited in the folder since the launch: the app kept the content the job was launched with.
    fromApp.push(...fromFolder.filter((hash) => !files.has(hash)));
    if (fromApp.length > 0) for (const [hash, content] of await this.fetchFiles({ jobId: job.jobId }, fromApp)) files.set(hash, content);
    return files;
  }

  /** Files of a job, or of an inventory listing, from the app. */
  private async fetchFiles(of: { jobId: number } | { listId: string }, hashes: string[]): Promise<Map<string, Buffer>> {
    const link = this.link;
    if (!link || !this.connected) throw new Error("not connected to the app");
    const raw: unknown = await link.timeout(60_000).emitWithAck(RteEvents.files, { v: CONTRACT_VERSION, ...of, hashes });
    const answer = filesAnswerSchema.parse(raw);
    if (answer.error) throw new Error(`the app refused the ${"jobId" in of ? "job" : "form"} files: ${answer.error}`);
    return new Map(answer.files.map((f) => [f.sha256, Buffer.from(f.contentBase64, "base64")]));
  }

  /** Sends the job's next pending batch unless one is already in flight. */
  private pump(jobId: number): void {
    const link = this.link;
    if (!link || !this.connected || this.inFlight.has(jobId)) return;
    const items = this.spool.nextBatch(jobId, 500, BATCH_BYTES);
    if (items.length === 0) return;
    this.inFlight.add(jobId);
    link
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
        // Only a live link resends: after a disconnect, the next link pumps every spooled job.
        if (this.connected) setImmediate(() => this.pump(jobId));
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
    this.sendState();
    const deadline = Date.now() + this.env.RTE_DRAIN_SECONDS * 1000;
    while (this.runs.size > 0 && Date.now() < deadline) await sleep(200);
    for (const run of this.runs.values()) run.cancel("drain");
    await Promise.all([...this.runs.values()].map((r) => r.finished));
    const flushDeadline = Date.now() + 10_000;
    while (this.spool.pendingCount() > 0 && this.connected && Date.now() < flushDeadline) await sleep(100);
    if (this.link && this.connected) {
      await this.link
        .timeout(2_000)
        .emitWithAck(RteEvents.leaving, { v: CONTRACT_VERSION, reason: "drained" })
        .catch(() => undefined);
    }
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.eviction) clearInterval(this.eviction);
    this.closing = true;
    this.socket?.close();
    // The HTTP(S) server it listens on is closed by main, with the health endpoints.
    this.inboundServer?.disconnectSockets(true);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
