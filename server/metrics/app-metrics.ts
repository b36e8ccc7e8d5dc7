/**
 * The app node's Prometheus metrics (GET /metrics, see endpoint.ts and docs/operations.md, "Metrics"):
 * one prom-client Registry per process, every name prefixed `playform_`, Node's default
 * process metrics included.
 *
 * This module is a leaf: it imports nothing of the project. What it reports at scrape time
 * (jobs by status from the database, the hubs' connections) comes in as callbacks set by
 * the custom server (server/index.ts, setSources); what is counted as it happens (items
 * stored, acknowledgements, HTTP requests, job starts) is observed by the hubs, the HTTP
 * entry and the custom server's lifecycle callback.
 *
 * Held on globalThis like server/runtime.ts: Next compiles route handlers into a bundle of
 * their own, and a second registry in the same process would count half the story.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { routePattern } from "./route-pattern";
import { loggerFor } from "../logging/logger";

const log = loggerFor({ component: "metrics" });

export const METRICS_PREFIX = "playform_";

/** What the scrape reads from outside this module. Each may be left unset (its gauges then have no series). */
export interface ScrapeSources {
  /** Jobs in the database by status (every status, zeros included), and when the longest-queued job joined the queue. */
  jobs: () => Promise<{ byStatus: Record<string, number>; oldestQueuedAt: Date | null }>;
  /** This node's connected runner instances, by runner name. */
  runnerInstances: () => ReadonlyMap<string, number>;
  /** This node's /ui sockets and the jobs they follow (one per socket and job). */
  ui: () => { connections: number; followers: number };
}

type JobsSnapshot = Awaited<ReturnType<ScrapeSources["jobs"]>>;

/** The HTTP methods a label may name; anything else is "other". */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export class AppMetrics {
  readonly registry = new Registry();
  private sources: Partial<ScrapeSources> = {};
  /** One database read per scrape, shared by the gauges that need it. */
  private snapshot: { at: number; value: Promise<JobsSnapshot | null> } | null = null;

  readonly httpDuration = new Histogram({
    name: `${METRICS_PREFIX}http_request_duration_seconds`,
    help: "HTTP requests to the app (pages and /api) by method, Next.js route pattern and status, from arrival to the last byte sent.",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly launchToStart = new Histogram({
    name: `${METRICS_PREFIX}job_launch_to_start_seconds`,
    help: "From a job joining the queue (its launch, or its approval) to a runner taking it (running); observed by the node that moved it.",
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800],
    registers: [this.registry],
  });

  readonly itemsStored = new Counter({
    name: `${METRICS_PREFIX}items_stored_total`,
    help: "Items runners sent that this node stored (each once; resends are not counted), by kind (start, output, events, log, end).",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });

  readonly linesStored = new Counter({
    name: `${METRICS_PREFIX}lines_stored_total`,
    help: "Lines of job output (stdout, stderr and runner lines) this node stored.",
    registers: [this.registry],
  });

  readonly batchAck = new Histogram({
    name: `${METRICS_PREFIX}runner_batch_ack_seconds`,
    help: "From receiving a runner's batch of items to sending its acknowledgement (placement check and the storing transaction).",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: METRICS_PREFIX });
    // In collect(), `this` is the gauge: the registry's own state is reached through these.
    const jobsSnapshot = () => this.jobsSnapshot();
    const sources = () => this.sources;

    new Gauge({
      name: `${METRICS_PREFIX}jobs`,
      help: "Jobs in the database by status (the whole cluster: read from the database at scrape time).",
      labelNames: ["status"] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        const jobs = await jobsSnapshot();
        for (const [status, count] of Object.entries(jobs?.byStatus ?? {})) this.set({ status }, count);
      },
    });
    new Gauge({
      name: `${METRICS_PREFIX}queue_length`,
      help: "Jobs waiting in the queue (status queued, a dispatch not yet answered included).",
      registers: [this.registry],
      async collect() {
        this.reset();
        const jobs = await jobsSnapshot();
        this.set(jobs ? (jobs.byStatus.queued ?? 0) : NaN);
      },
    });
    new Gauge({
      name: `${METRICS_PREFIX}queue_oldest_wait_seconds`,
      help: "How long the job longest in the queue has waited so far (0 with an empty queue).",
      registers: [this.registry],
      async collect() {
        this.reset();
        const jobs = await jobsSnapshot();
        if (!jobs) this.set(NaN);
        else this.set(jobs.oldestQueuedAt ? Math.max(0, (Date.now() - jobs.oldestQueuedAt.getTime()) / 1000) : 0);
      },
    });
    new Gauge({
      name: `${METRICS_PREFIX}runner_instances_connected`,
      help: "Runner instances connected to this node, by runner (sum over nodes for the cluster).",
      labelNames: ["runner"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [runner, count] of sources().runnerInstances?.() ?? []) this.set({ runner }, count);
      },
    });
    new Gauge({
      name: `${METRICS_PREFIX}ui_connections`,
      help: "Browser sockets connected to this node's /ui namespace.",
      registers: [this.registry],
      collect() {
        this.reset();
        const ui = sources().ui?.();
        if (ui) this.set(ui.connections);
      },
    });
    new Gauge({
      name: `${METRICS_PREFIX}ui_followers`,
      help: "Jobs followed live on this node, one per browser socket and job.",
      registers: [this.registry],
      collect() {
        this.reset();
        const ui = sources().ui?.();
        if (ui) this.set(ui.followers);
      },
    });
  }

  setSources(sources: Partial<ScrapeSources>): void {
    this.sources = { ...this.sources, ...sources };
    this.snapshot = null;
  }

  /** The Prometheus text of every metric, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** One HTTP request, labelled by its route pattern (never its raw path: ids would make a series each). */
  observeHttpRequest(method: string | undefined, route: string, status: number, seconds: number): void {
    const verb = method && METHODS.has(method) ? method : "other";
    this.httpDuration.observe({ method: verb, route, status: String(status) }, seconds);
  }

  /** The route label of a raw request path. */
  routeOf(path: string): string {
    return routePattern(path);
  }

  /** A batch of items stored: how many of each kind, and the output lines among them. */
  observeStored(items: readonly { kind: string; lineCount?: number }[]): void {
    let lines = 0;
    for (const item of items) {
      this.itemsStored.inc({ kind: item.kind });
      lines += item.lineCount ?? 0;
    }
    if (lines > 0) this.linesStored.inc(lines);
  }

  /**
   * The database's part of a scrape, read once for the gauges that share it (they collect
   * concurrently). A failed read is logged; playform_jobs then has no series and the queue
   * gauges say NaN (an unlabelled gauge always has its one series), rather than failing the
   * whole scrape or repeating old values as if they were current.
   */
  private jobsSnapshot(): Promise<JobsSnapshot | null> {
    const read = this.sources.jobs;
    if (!read) return Promise.resolve(null);
    const now = Date.now();
    if (this.snapshot && now - this.snapshot.at < 1_000) return this.snapshot.value;
    const value = read().catch((error: unknown) => {
      log().error({ err: error }, "reading jobs by status failed");
      return null;
    });
    this.snapshot = { at: now, value };
    return value;
  }
}

const KEY = Symbol.for("playform.metrics");

/** This process's metrics (created on first use). */
export function appMetrics(): AppMetrics {
  const holder = globalThis as typeof globalThis & { [KEY]?: AppMetrics };
  holder[KEY] ??= new AppMetrics();
  return holder[KEY];
}
