/**
 * The `/rte` namespace: one socket per runner instance. Authenticates the token in the
 * handshake, stores what runners send exactly once, acknowledges it, and fans new output out
 * to the browsers following the job.
 */
import { randomUUID } from "node:crypto";
import type { Namespace, Server, Socket } from "socket.io";
import {
  CONTRACT_VERSION,
  DEFAULT_ENVIRONMENT,
  type HelloAnswer,
  type RteHandshake,
  LEGACY_HEARTBEAT_SECONDS,
  RTE_NAMESPACE,
  RteEvents,
  RteFeatures,
  filesRequestSchema,
  inventoryAnswerSchema,
  jobItemsSchema,
  rteEnvironmentsSchema,
  rteHandshakeSchema,
  rteStateSchema,
  type EnvironmentReport,
  type FilesAnswer,
  type InventoryAnswer,
  type ItemsAck,
  type ManifestEntry,
  type RteConfig,
} from "../protocol/rte-messages";
import { findJobPlacements, getJobForDispatch, listRunningJobsOnInstance, markJobDispatched } from "../data/jobs";
import {
  recordHeartbeat,
  recordInstanceConnected,
  recordInstanceDisconnected,
  recordInstanceEnvironments,
  runnerForToken,
} from "../data/runners";
import { isFinalStatus, type JobLifecycle } from "../jobs/lifecycle";
import { storeRteItems, storedOutput } from "../jobs/output";
import { heartbeatIntervalSeconds, silentAfterSeconds } from "../jobs/heartbeat";
import { offersEnvironment } from "../jobs/job-environment";
import { manifestSchema } from "../jobs/manifest-schema";
import { readLaunchedFiles } from "../jobs/job-files";
import { planOf } from "../jobs/plan";
import type { JobUpdatePublisher } from "./job-updates";
import { appMetrics } from "../metrics/app-metrics";
import { loggerFor } from "../logging/logger";

const log = loggerFor({ component: "rte-hub" });

/**
 * What the per-link logic (here and in the dispatcher) uses of a runner's socket: a server-side
 * socket of the `/rte` namespace (outbound: the RTE connected to the app) or a socket.io client
 * socket (inbound: this node connected to the RTE, see inbound-links.ts). The messages are the same.
 */
export interface LinkSocket {
  readonly connected: boolean;
  emit(event: string, ...args: unknown[]): unknown;
  timeout(ms: number): { emitWithAck(event: string, ...args: unknown[]): Promise<unknown> };
  on(event: string, listener: (...args: never[]) => void): unknown;
  disconnect(close?: boolean): unknown;
}

export interface RunnerLink {
  socket: LinkSocket;
  runnerId: string;
  runnerName: string;
  /**
   * The token this instance presented (verified against the stored hash). The app keeps only
   * hashes at rest; the node holding the socket seals the runner's jobs with this copy.
   */
  token: string;
  instanceId: string;
  capacity: number;
  /** Jobs this instance reported running, plus those dispatched since. */
  running: Set<number>;
  /** Jobs this instance was told to cancel because they are not its to run (logged once). */
  strays: Set<number>;
  /**
   * Jobs found running here: a running job's instance never changes (only queued jobs are
   * dispatched or taken back), so its next batches need no placement query.
   */
  placed: Set<number>;
  draining: boolean;
  /** What the RTE announced it does (RteFeatures). */
  features: readonly string[];
  /**
   * Its environments report (`rte:environments`, or the handshake of the build before it); null
   * until one arrives or from an RTE too old to send one. What it may run: server/jobs/job-environment.ts.
   */
  environments: EnvironmentReport[] | null;
  /** Inventory listings asked of this instance and not answered yet: their files, by listId. */
  listings: Map<string, { sourceDir: string; manifest: ManifestEntry[] }>;
}

/**
 * Whether a runner instance may run a job, report on it and fetch its files: `here` when the
 * job is dispatched to it (or was back in the queue and now is), `elsewhere` when the job is
 * another instance's or the app ended it before it reached this one, `unknown` when it is no
 * job of this runner.
 */
type Placement = "here" | "elsewhere" | "unknown";

/**
 * How long an inventory listing waits for a connected instance's environments report (the
 * RTE's probe: ansible-playbook --version and ansible-galaxy per environment, 20 s at most each).
 */
const REPORT_WAIT_MS = 30_000;

/** Jobs running on an instance that no longer has them are abandoned, after this much grace. */
const STATE_GRACE_MS = 30_000;

export class RteHub {
  readonly links = new Map<string, RunnerLink>();
  /** When each link was set up: its environments report's delay is logged. */
  private readonly connectedAt = new WeakMap<RunnerLink, number>();
  /** Each link's instance row, once written at its connection (`rte:environments` updates it). */
  private readonly instanceRecorded = new WeakMap<RunnerLink, Promise<unknown>>();
  /** Batches with new items stored since start (logged at shutdown; the output benchmark reads it). */
  batchesStored = 0;
  private namespace: Namespace | null = null;

  constructor(
    private readonly nodeId: string,
    private readonly jobs: JobLifecycle,
    /** For new output; status changes are published by the lifecycle. */
    private readonly publish: JobUpdatePublisher,
    private readonly options: { heartbeatTimeoutSeconds: number },
  ) {}

  attach(io: Server): void {
    const namespace = io.of(RTE_NAMESPACE);
    this.namespace = namespace;
    namespace.use((socket, next) => {
      void this.authenticate(socket).then(
        (error) => next(error ?? undefined),
        (error: unknown) => {
          log().error({ err: error }, "handshake failed");
          next(new Error("internal error during the handshake"));
        },
      );
    });
    namespace.on("connection", (socket) => void this.onConnection(socket));
  }

  /** An RTE's handshake (outbound `auth`, inbound `rte:hello`): the runner it is, or why it is refused. */
  private async checkHandshake(
    auth: unknown,
  ): Promise<{ ok: true; runnerId: string; runnerName: string; handshake: RteHandshake } | { ok: false; reason: string }> {
    const parsed = rteHandshakeSchema.safeParse(auth);
    if (!parsed.success) {
      // The first problem, by field: a malformed report (environments…) is told apart from a missing token.
      const issue = parsed.error.issues[0];
      const problem = issue ? ` (${issue.path.join(".") || "auth"}: ${issue.message})` : "";
      return { ok: false, reason: `handshake must carry v, token, instanceId, version and capacity${problem}` };
    }
    if (parsed.data.v !== CONTRACT_VERSION) {
      return { ok: false, reason: `contract version mismatch: the app speaks v${CONTRACT_VERSION}, this RTE v${parsed.data.v}` };
    }
    const found = await runnerForToken(parsed.data.token);
    if (!found.ok) return { ok: false, reason: found.reason };
    if (parsed.data.runner !== undefined && parsed.data.runner !== found.runner.name) {
      return { ok: false, reason: `this token belongs to runner "${found.runner.name}", not "${parsed.data.runner}" (RTE_RUNNER_NAME)` };
    }
    return { ok: true, runnerId: found.runner.id, runnerName: found.runner.name, handshake: parsed.data };
  }

  private async authenticate(socket: Socket): Promise<Error | null> {
    const checked = await this.checkHandshake(socket.handshake.auth);
    if (!checked.ok) return new Error(checked.reason);
    socket.data.runnerId = checked.runnerId;
    socket.data.runnerName = checked.runnerName;
    socket.data.handshake = checked.handshake;
    return null;
  }

  private async onConnection(socket: Socket): Promise<void> {
    const handshake = rteHandshakeSchema.parse(socket.data.handshake);
    await this.attachLink(socket, String(socket.data.runnerId), String(socket.data.runnerName), handshake);
  }

  /**
   * Inbound: this node connected to runner `runnerId`'s RTE (certificate checked), which sent its
   * handshake in `rte:hello`. The link is set up as an outbound RTE's, or refused with why.
   */
  async attachInbound(socket: LinkSocket, hello: unknown, runnerId: string): Promise<HelloAnswer> {
    const checked = await this.checkHandshake(hello);
    if (!checked.ok) return { ok: false, reason: checked.reason };
    if (checked.runnerId !== runnerId)
      return { ok: false, reason: `the RTE at this address holds the token of runner "${checked.runnerName}"` };
    await this.attachLink(socket, checked.runnerId, checked.runnerName, checked.handshake);
    return { ok: true };
  }

  /** The per-link logic, the same over either kind of socket. */
  private async attachLink(socket: LinkSocket, runnerId: string, runnerName: string, handshake: RteHandshake): Promise<void> {
    const link: RunnerLink = {
      socket,
      runnerId,
      runnerName,
      token: handshake.token,
      instanceId: handshake.instanceId,
      capacity: handshake.capacity,
      running: new Set(),
      strays: new Set(),
      placed: new Set(),
      draining: false,
      features: handshake.features ?? [],
      environments: handshake.environments ?? null,
      listings: new Map(),
    };
    const key = `${link.runnerId}:${link.instanceId}`;
    const previous = this.links.get(key);
    if (previous && previous.socket !== socket) previous.socket.disconnect(true);
    this.links.set(key, link);
    log().info(
      { runner: link.runnerName, instance: link.instanceId },
      `runner ${link.runnerName} instance ${link.instanceId} connected (capacity ${link.capacity})`,
    );

    socket.on(RteEvents.items, (payload: unknown, ack?: (answer: ItemsAck) => void) => {
      const received = performance.now();
      void this.onItems(link, payload).then(
        (answer) => {
          ack?.(answer);
          appMetrics().batchAck.observe((performance.now() - received) / 1000);
        },
        (error: unknown) =>
          log().error({ err: error, runner: link.runnerName, instance: link.instanceId }, `storing items from ${link.runnerName} failed`),
      );
    });
    socket.on(RteEvents.files, (payload: unknown, ack?: (answer: FilesAnswer) => void) => {
      void this.onFiles(link, payload).then((answer) => ack?.(answer));
    });
    socket.on(RteEvents.state, (payload: unknown) => void this.onState(link, payload));
    socket.on(RteEvents.environments, (payload: unknown) => void this.onEnvironments(link, payload));
    socket.on(RteEvents.leaving, (_payload: unknown, ack?: () => void) => {
      link.draining = true;
      log().info(
        { runner: link.runnerName, instance: link.instanceId },
        `runner ${link.runnerName} instance ${link.instanceId} is leaving`,
      );
      ack?.();
    });
    socket.on("disconnect", (reason: string) => {
      if (this.links.get(key) === link) this.links.delete(key);
      log().info(
        { runner: link.runnerName, instance: link.instanceId },
        `runner ${link.runnerName} instance ${link.instanceId} disconnected (${reason})`,
      );
      void recordInstanceDisconnected(link.runnerId, link.instanceId, this.nodeId);
    });
    // The heartbeat interval follows RTE_HEARTBEAT_TIMEOUT_SECONDS (four per timeout): an RTE's
    // fixed 15 s would have a timeout under 15 s abandon healthy jobs. RTEs that do not take
    // the interval from the app keep 15 s, and the reaper gives them the time that needs.
    const timeout = this.options.heartbeatTimeoutSeconds;
    const takesInterval = handshake.features?.includes(RteFeatures.heartbeatInterval) ?? false;
    const heartbeatSeconds = heartbeatIntervalSeconds(timeout);
    if (takesInterval) socket.emit(RteEvents.config, { v: CONTRACT_VERSION, heartbeatSeconds } satisfies RteConfig);
    else if (timeout < silentAfterSeconds(timeout, null)) {
      log().warn(
        { runner: link.runnerName, instance: link.instanceId },
        `runner ${link.runnerName} instance ${link.instanceId} (RTE ${handshake.version}) keeps a fixed ${LEGACY_HEARTBEAT_SECONDS} s ` +
          `heartbeat: its jobs are abandoned after ${silentAfterSeconds(timeout, null)} s of silence, not RTE_HEARTBEAT_TIMEOUT_SECONDS=${timeout}; upgrade it`,
      );
    }
    // After the handlers: what the RTE sends right after connecting (its state, resent items)
    // must not arrive before anyone listens.
    const heartbeatMs = takesInterval ? Math.round(heartbeatSeconds * 1000) : null;
    // An RTE that reports in `rte:environments` has reported nothing yet: [] (it offers nothing
    // until then), not null (an older RTE, which offers `default`).
    const reports = handshake.features?.includes(RteFeatures.environments) ? [] : null;
    this.connectedAt.set(link, Date.now());
    const recorded = recordInstanceConnected(link.runnerId, link.instanceId, this.nodeId, {
      capacity: link.capacity,
      version: handshake.version,
      heartbeatMs,
      environments: handshake.environments ?? reports,
    });
    // A report may arrive while this is written (an RTE whose probe ended before it connected
    // sends it at once): it is stored after this row, never overwritten by its `[]`.
    this.instanceRecorded.set(
      link,
      recorded.catch(() => undefined),
    );
    await recorded;
  }

  /**
   * `rte:environments`: the instance's probe has ended. Stored as the handshake's report was,
   * and from now on the dispatcher sends it the jobs of the environments it offers.
   */
  private async onEnvironments(link: RunnerLink, payload: unknown): Promise<void> {
    const parsed = rteEnvironmentsSchema.safeParse(payload);
    const where = { runner: link.runnerName, instance: link.instanceId };
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      log().warn(
        where,
        `runner ${link.runnerName} instance ${link.instanceId} sent a malformed environments report (${issue?.path.join(".")}: ${issue?.message}); it is dispatched no job until it sends a good one`,
      );
      return;
    }
    link.environments = parsed.data.environments;
    const since = this.connectedAt.get(link);
    const names = parsed.data.environments.map((e) => (e.error === null ? e.name : `${e.name} (broken)`)).join(", ");
    log().info(
      where,
      `runner ${link.runnerName} instance ${link.instanceId} reported its environments${since !== undefined ? ` ${Date.now() - since} ms after connecting` : ""}: ${names || "none"}`,
    );
    await this.instanceRecorded.get(link);
    await recordInstanceEnvironments(link.runnerId, link.instanceId, parsed.data.environments);
  }

  private async onItems(link: RunnerLink, payload: unknown): Promise<ItemsAck> {
    const parsed = jobItemsSchema.safeParse(payload);
    if (!parsed.success) {
      log().warn(
        { runner: link.runnerName, instance: link.instanceId },
        `runner ${link.runnerName} sent malformed items: ${parsed.error.message}`,
      );
      return { acked: [] };
    }
    const { jobId, items } = parsed.data;
    // A runner can report only on jobs it was sent: anything else is dropped, not stored. So is
    // a second run of a job on another instance (a dispatch answered after it was taken back
    // and sent elsewhere): its items would mix with the real run's under the same numbers.
    const placement = await this.place(link, jobId);
    if (placement !== "here") {
      if (placement === "elsewhere") this.cancelStray(link, jobId, "it is not this instance's job (any more)");
      return { acked: [], drop: true };
    }
    const fresh = await storeRteItems(jobId, items);
    if (fresh.length > 0) this.batchesStored++;
    appMetrics().observeStored(fresh);
    if (fresh.some((i) => i.kind === "output" || i.kind === "log")) {
      const stored = storedOutput(fresh) ?? undefined;
      this.publish({ jobId, output: true, status: false, seq: Math.max(...fresh.map((i) => i.seq)), stored });
    }
    for (const item of fresh) {
      if (item.kind === "start") await this.jobs.started(jobId, new Date(item.ts * 1000), link.instanceId);
      if (item.kind === "end") {
        await this.jobs.ended(jobId, {
          status: item.status,
          exitCode: item.exitCode,
          reason: item.reason,
          at: new Date(item.ts * 1000),
          outputTruncated: item.outputTruncated,
          cancelledBy: item.cancelledBy,
          runner: link.runnerName,
        });
        link.running.delete(jobId);
        link.placed.delete(jobId);
      }
    }
    return { acked: items.map((i) => i.seq) };
  }

  private async onFiles(link: RunnerLink, payload: unknown): Promise<FilesAnswer> {
    const parsed = filesRequestSchema.safeParse(payload);
    if (!parsed.success) return { files: [], error: "malformed files request" };
    if (parsed.data.listId !== undefined) {
      // Only the files of a listing this node asked this very instance for, while it is open.
      const listing = link.listings.get(parsed.data.listId);
      if (!listing) return { files: [], error: "no inventory listing of that id is open for this runner" };
      try {
        return { files: await readLaunchedFiles(listing.sourceDir, listing.manifest, parsed.data.hashes) };
      } catch (error) {
        return { files: [], error: error instanceof Error ? error.message : String(error) };
      }
    }
    const jobId = parsed.data.jobId!;
    // The RTE may ask before its claim answer has been recorded: a job dispatched to this very
    // instance counts, whether its status already says running or not.
    const placement = await this.place(link, jobId);
    const job = placement === "here" ? await getJobForDispatch(jobId) : null;
    if (!job || (job.status !== "running" && job.status !== "queued")) {
      return { files: [], error: `job ${jobId} is not running on this runner` };
    }
    try {
      const manifest = manifestSchema.parse(job.manifest);
      const { plan } = planOf({ ...job, manifest, runnerName: job.runner?.name ?? "" });
      return { files: await readLaunchedFiles(plan.sourceDir, manifest, parsed.data.hashes) };
    } catch (error) {
      return { files: [], error: error instanceof Error ? error.message : String(error) };
    }
  }

  private async onState(link: RunnerLink, payload: unknown): Promise<void> {
    const parsed = rteStateSchema.safeParse(payload);
    if (!parsed.success) return;
    const state = parsed.data;
    // Revoked or rotated on any app node: the heartbeat is where this node notices.
    const still = await runnerForToken(link.token);
    if (!still.ok || still.runner.id !== link.runnerId) {
      this.disconnectRunner(link.runnerId, still.ok ? "token belongs to another runner" : still.reason);
      return;
    }
    link.draining = state.draining;
    link.running = new Set(state.running);
    await this.reconcileRunning(link, state.running);
    await recordHeartbeat(link.runnerId, link.instanceId, state.running.length);
    // After an RTE restart its playbooks are gone: jobs we think run there, that it neither
    // runs nor holds in its spool, can never finish.
    const known = new Set([...state.running, ...state.spooled]);
    const orphans = await listRunningJobsOnInstance(link.runnerId, link.instanceId, new Date(Date.now() - STATE_GRACE_MS));
    for (const id of orphans) {
      if (known.has(id)) continue;
      const reason = `runner ${link.runnerName} (${link.instanceId}) no longer has this job: it restarted while the playbook ran`;
      await this.jobs.transition(id, "abandoned", { statusReason: reason }, ["running"]);
    }
  }

  /**
   * Where a job stands for this instance. A job back in the queue (its dispatch to this
   * instance went unanswered and was taken back) is dispatched to this instance again here:
   * the instance is running it, so it is the one place the job can run without running twice.
   */
  private async place(link: RunnerLink, jobId: number): Promise<Placement> {
    if (link.placed.has(jobId)) return "here";
    const [job] = await findJobPlacements([jobId]);
    if (!job || job.runnerId !== link.runnerId) return "unknown";
    if (job.instanceId === link.instanceId) {
      if (job.status === "running") link.placed.add(jobId);
      return "here";
    }
    if (job.instanceId === null && job.status === "queued" && (await markJobDispatched(jobId, link.instanceId))) {
      log().warn(
        { jobId, runner: link.runnerName, instance: link.instanceId },
        `job ${jobId}: instance ${link.instanceId} of runner ${link.runnerName} claimed it after its dispatch was taken back; it runs there`,
      );
      return "here";
    }
    return "elsewhere";
  }

  /**
   * The jobs an instance says it runs, against what the database says: a job still queued for
   * it was claimed (the claim answer was lost: its node died, or it came after the timeout)
   * and now runs; a job that is another instance's, or that the app ended while its dispatch
   * was unanswered (aborted, timed out, abandoned), is cancelled there.
   */
  private async reconcileRunning(link: RunnerLink, running: readonly number[]): Promise<void> {
    if (running.length === 0) return;
    const known = new Map((await findJobPlacements(running)).map((job) => [job.id, job]));
    for (const jobId of running) {
      const found = known.get(jobId);
      // Dispatched here already (the usual case), else placed now if it can be.
      const job = found && found.runnerId === link.runnerId && found.instanceId === link.instanceId ? found : null;
      const placement = job ? "here" : await this.place(link, jobId);
      if (placement !== "here") {
        this.cancelStray(link, jobId, placement === "unknown" ? "it is no job of this runner" : "it is not this instance's job (any more)");
        continue;
      }
      // Placed just now: it was back in the queue, and is queued for this instance now.
      const status = job ? job.status : "queued";
      if (status === "queued" && (await this.jobs.claimed(jobId, link.instanceId))) {
        log().warn(
          { jobId, runner: link.runnerName, instance: link.instanceId },
          `job ${jobId}: runs on ${link.runnerName}/${link.instanceId}, whose claim answer never arrived`,
        );
      } else if (job && isFinalStatus(job.status) && !job.endStored) {
        this.cancelStray(link, jobId, `the app ended it (${job.status})`);
      }
    }
  }

  /** Tells an instance to stop a run that is not (or no longer) its job's. */
  private cancelStray(link: RunnerLink, jobId: number, why: string): void {
    if (!link.strays.has(jobId)) {
      link.strays.add(jobId);
      log().warn(
        { jobId, runner: link.runnerName, instance: link.instanceId },
        `cancelling job ${jobId} on ${link.runnerName}/${link.instanceId}: ${why}`,
      );
    }
    link.socket.emit(RteEvents.cancel, { v: CONTRACT_VERSION, jobId });
  }

  /**
   * Asks an instance of runner `runnerId` connected to this node, one that reads inventories
   * (RteFeatures.inventoryList), to list `inventory` of the form's files (server/rte/inventory-list.ts).
   * Null when no such instance is connected here.
   */
  async listInventory(
    runnerId: string,
    request: { sourceDir: string; manifest: ManifestEntry[]; inventory: string; environment?: string; playbook?: string },
    timeoutMs: number,
  ): Promise<InventoryAnswer | null> {
    // The form's environment lists it, as it runs the form's jobs (its inventory plugins, collections).
    const environment = request.environment ?? DEFAULT_ENVIRONMENT;
    const candidates = () =>
      [...this.links.values()].filter(
        (l) => l.runnerId === runnerId && l.socket.connected && !l.draining && l.features.includes(RteFeatures.inventoryList),
      );
    const pick = () =>
      candidates()
        .filter((l) => offersEnvironment(l, environment))
        .sort((a, b) => a.running.size / a.capacity - b.running.size / b.capacity)[0];
    // An RTE reports its environments a few seconds after it connects (its probe runs ansible):
    // a form page opened meanwhile waits for the report instead of hearing the runner is not there.
    const reportPending = () => candidates().some((l) => l.environments === null && l.features.includes(RteFeatures.environments));
    const deadline = Date.now() + Math.min(timeoutMs, REPORT_WAIT_MS);
    let link = pick();
    while (!link && reportPending() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      link = pick();
    }
    if (!link) return null;
    const listId = randomUUID();
    link.listings.set(listId, { sourceDir: request.sourceDir, manifest: request.manifest });
    try {
      const raw: unknown = await link.socket.timeout(timeoutMs).emitWithAck(RteEvents.inventory, {
        v: CONTRACT_VERSION,
        listId,
        inventory: request.inventory,
        manifest: request.manifest,
        sourceDir: request.sourceDir,
        ...(environment !== DEFAULT_ENVIRONMENT ? { environment } : {}),
        ...(request.playbook !== undefined ? { playbook: request.playbook } : {}),
      });
      const answer = inventoryAnswerSchema.safeParse(raw);
      return answer.success
        ? answer.data
        : { ok: false, error: `runner ${link.runnerName} answered something else than an inventory listing` };
    } catch {
      return { ok: false, error: `runner ${link.runnerName} did not answer within ${Math.round(timeoutMs / 1000)} s` };
    } finally {
      link.listings.delete(listId);
    }
  }

  /** Links of this node that can take a job for the runner, least loaded first. */
  availableLinks(runnerId: string): RunnerLink[] {
    return [...this.links.values()]
      .filter((l) => l.runnerId === runnerId && l.socket.connected && !l.draining && l.running.size < l.capacity)
      .sort((a, b) => a.running.size / a.capacity - b.running.size / b.capacity);
  }

  /** Connected instances on this node by runner name (for the metrics). */
  instancesByRunner(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const link of this.links.values()) {
      if (link.socket.connected) counts.set(link.runnerName, (counts.get(link.runnerName) ?? 0) + 1);
    }
    return counts;
  }

  linkRunning(jobId: number): RunnerLink | undefined {
    for (const link of this.links.values()) if (link.running.has(jobId)) return link;
    return undefined;
  }

  linkFor(runnerId: string, instanceId: string): RunnerLink | undefined {
    return this.links.get(`${runnerId}:${instanceId}`);
  }

  /** Closes every link of a runner on this node (revoked, token rotated), telling it why. */
  disconnectRunner(runnerId: string, reason: string): void {
    for (const link of this.links.values()) {
      if (link.runnerId !== runnerId) continue;
      log().info(
        { runner: link.runnerName, instance: link.instanceId },
        `closing runner ${link.runnerName} instance ${link.instanceId}: ${reason}`,
      );
      link.socket.emit(RteEvents.closing, { v: CONTRACT_VERSION, reason });
      link.socket.disconnect(true);
    }
  }

  close(): void {
    this.namespace?.disconnectSockets(true);
    for (const link of this.links.values()) link.socket.disconnect(true);
  }
}
