/**
 * The Playform app: one HTTP server hosting Next.js (UI + API) and socket.io (`/rte` for
 * runner links, `/ui` for browsers following jobs), plus the dispatch loop and, unless
 * disabled, one local RTE process.
 */
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import next from "next";
import { Server as SocketServer } from "socket.io";
import { parseTrustProxy } from "./api/client-address";
import { parseAllowedOrigins } from "./auth/cross-site";
import { httpEntry } from "./api/http-entry";
import { startUp } from "./bootstrap";
import { encryptionSecretSource, loadAppConfig } from "./config";
import { closeDatabase } from "./data/connection";
import { applyMigrations, migrationStatus } from "./data/migrate";
import { InboundLinks } from "./hub/inbound-links";
import { RteHub } from "./hub/rte-hub";
import type { JobUpdatePublisher } from "./hub/job-updates";
import { UiHub } from "./hub/ui-hub";
import { openJobUpdateBus } from "./data/job-update-bus";
import { countJobsByStatus, findJobQueuedAt, oldestQueuedAt } from "./data/jobs";
import { Dispatcher } from "./jobs/dispatcher";
import { sweepUploads } from "./forms/uploads";
import { recordJobHosts, startHostsCatchUp } from "./jobs/hosts";
import { sweepJobFiles } from "./jobs/job-files";
import { NotificationSender } from "./jobs/notify-delivery";
import { startRetentionSchedule } from "./retention/schedule";
import { retentionSettings } from "./retention/settings";
import { syncDueSources } from "./sources/sync";
import { Scheduler } from "./schedules/scheduler";
import { JOB_STATUSES, JobLifecycle } from "./jobs/lifecycle";
import { appMetrics } from "./metrics/app-metrics";
import { METRICS_PATH, metricsEndpoint } from "./metrics/endpoint";
import { LocalRte, keepAppDataPrivate, localRteDirs, readLocalToken, writeLocalToken } from "./local-rte";
import { findExecutable } from "./system";
import { initEncryptionSecret } from "./security/encryption-secret";
import { playformRuntime } from "./runtime";
import { initLogging, logger, logSettings, logSettingsOrDefaults, maskInLogs, routeConsoleToLogs } from "./logging/logger";

/** How often a node sweeps the uploads no job took (they go after a day). */
const UPLOAD_SWEEP_MS = 15 * 60 * 1000;
/** How often a node looks for Git sources due for their periodic sync. */
const SOURCE_SYNC_CHECK_MS = 60 * 1000;

function log(line: string): void {
  logger().info(line);
}

/** The password in a database URL (postgresql://user:password@host/db), if any. */
function databasePassword(url: string): string | null {
  try {
    return decodeURIComponent(new URL(url).password) || null;
  } catch {
    return null;
  }
}

/** How to start an RTE process from here: the built bundle in production, tsx from source. */
function rteEntry(): string[] {
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith(".js")) return [process.execPath, path.join(path.dirname(self), "rte.js")];
  return [process.execPath, "--import", "tsx", path.join(path.dirname(self), "rte", "entry.ts")];
}

/** A job a runner took: how long it waited since it joined the queue. */
async function observeLaunchToStart(jobId: number, at: Date): Promise<void> {
  try {
    const queuedAt = await findJobQueuedAt(jobId);
    if (queuedAt) appMetrics().launchToStart.observe(Math.max(0, at.getTime() - queuedAt.getTime()) / 1000);
  } catch (error) {
    logger({ component: "metrics", jobId }).error({ err: error }, `job ${jobId}: reading when it was queued failed`);
  }
}

async function main(): Promise<void> {
  // Until the configuration is read (a bad LOG_LEVEL is reported like any bad setting).
  initLogging({ ...logSettingsOrDefaults(process.env), base: { source: "app" } });
  const config = loadAppConfig();
  const logging = logSettings({ LOG_LEVEL: config.LOG_LEVEL, LOG_FORMAT: config.LOG_FORMAT });
  initLogging({ ...logging, base: { source: "app", node: config.PLAYFORM_NODE_ID } });
  // Next.js prints through console: as JSON lines too, when lines are JSON.
  if (logging.format === "json") routeConsoleToLogs();
  // Never written, whatever line they would end up in (docs/operations.md, "Logs").
  maskInLogs([
    config.PLAYFORM_ADMIN_PASSWORD,
    config.ENCRYPTION_SECRET,
    config.PLAYFORM_METRICS_TOKEN,
    databasePassword(config.DATABASE_URL),
  ]);
  const trustedProxies = parseTrustProxy(process.env.PLAYFORM_TRUST_PROXY);
  const allowedOrigins = parseAllowedOrigins(process.env.PLAYFORM_ALLOWED_ORIGINS);
  const dev = config.NODE_ENV === "development";
  const { applied } = await applyMigrations(config.DATABASE_URL);
  if (applied.length > 0) log(`applied ${applied.length} migration(s): ${applied.join(", ")}`);
  keepAppDataPrivate(config.DATABASE_URL);
  // Credentials are encrypted at rest with a key from ENCRYPTION_SECRET (generated into
  // encryption.key next to the SQLite database when unset): known before anything reads one.
  initEncryptionSecret(encryptionSecretSource(config), log);
  // Admin, forms, demo credential, local runner: one node at a time (PostgreSQL advisory lock).
  // The local RTE's token of the previous start, kept in its state folder: while still valid it
  // lets a local RTE that outlived the previous app process (kill -9) reconnect to this one.
  const localDirs = localRteDirs(process.env);
  const { signIn, localRunner } = await startUp(config, log, readLocalToken(localDirs.stateDir));
  if (!(await findExecutable("ansible-playbook"))) {
    log("WARNING: ansible-playbook is not installed: jobs will fail until it is.");
    log("         Install it with: sudo apt-get install -y ansible   (Debian/Ubuntu)");
  }

  const app = next({ dev, dir: process.cwd(), hostname: config.HOST, port: config.PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  const metrics = appMetrics();
  // Before Next: the client's address for throttling, a JSON 404 for non-canonical API paths,
  // /metrics, and the HTTP metrics of every request.
  const server = http.createServer(
    httpEntry(handle, {
      trustedProxies,
      allowedOrigins,
      ownRoutes: { [METRICS_PATH]: metricsEndpoint(metrics, config.PLAYFORM_METRICS_TOKEN) },
    }),
  );
  const io = new SocketServer(server, { maxHttpBufferSize: 16 * 1024 * 1024, serveClient: false });
  // With PostgreSQL several app nodes may serve one job's followers: news goes through NOTIFY.
  const bus = await openJobUpdateBus(config.DATABASE_URL);
  const uiHub = new UiHub(bus, { trustedProxies, allowedOrigins }, config.PLAYFORM_ACCESS_RECHECK_SECONDS * 1000);
  uiHub.attach(io);
  const publish: JobUpdatePublisher = (update) => uiHub.publish(update);
  // The dispatcher needs the lifecycle and the lifecycle wakes the dispatcher; nothing changes
  // a job before the server listens, by when `dispatcher` below exists.
  const jobs = new JobLifecycle({
    publish,
    wakeDispatcher: () => dispatcher.kick(),
    onRunning: (jobId, at) => void observeLaunchToStart(jobId, at),
    onFinished: (jobId) => void recordJobHosts(jobId),
  });
  const hub = new RteHub(config.PLAYFORM_NODE_ID, jobs, publish, { heartbeatTimeoutSeconds: config.RTE_HEARTBEAT_TIMEOUT_SECONDS });
  hub.attach(io);
  // Runners in inbound mode: this node connects to them.
  const inbound = new InboundLinks(hub, { nodeId: config.PLAYFORM_NODE_ID, leaseMs: config.PLAYFORM_INBOUND_LEASE_SECONDS * 1000 });
  metrics.setSources({
    jobs: async () => {
      const [counts, oldest] = await Promise.all([countJobsByStatus(), oldestQueuedAt()]);
      return { byStatus: Object.fromEntries(JOB_STATUSES.map((status) => [status, counts[status] ?? 0])), oldestQueuedAt: oldest };
    },
    runnerInstances: () => hub.instancesByRunner(),
    ui: () => uiHub.connections(),
  });
  const dispatcher = new Dispatcher(hub, jobs, {
    queueMinutes: config.RTE_QUEUE_MINUTES,
    heartbeatTimeoutSeconds: config.RTE_HEARTBEAT_TIMEOUT_SECONDS,
  });
  // For route handlers, which build their own lifecycle from these (see server/runtime.ts).
  const runtime = playformRuntime();
  runtime.publishJobUpdate = publish;
  runtime.kickDispatcher = () => dispatcher.kick();
  runtime.disconnectRunner = (runnerId, reason) => hub.disconnectRunner(runnerId, reason);
  runtime.listInventory = (runnerId, request, timeoutMs) => hub.listInventory(runnerId, request, timeoutMs);
  runtime.refreshInboundRunner = (runnerId) => inbound.refresh(runnerId);
  runtime.notReadyReason = async () => {
    try {
      const { pending } = await migrationStatus(config.DATABASE_URL);
      return pending.length > 0 ? `${pending.length} migration(s) pending: ${pending.join(", ")}` : null;
    } catch (error) {
      logger({ component: "ready" }).error({ err: error }, "database check failed");
      return "database unreachable";
    }
  };
  dispatcher.start();
  inbound.start();
  // Uploads no job took within a day, and content no upload names (server/forms/uploads.ts).
  // Every node sweeps: the deletes are conditional, so two nodes sweeping at once do no harm.
  const uploadSweeps = setInterval(() => {
    sweepUploads()
      .then(({ uploads, files }) => {
        if (uploads + files > 0) logger({ component: "uploads" }).info(`swept ${uploads} unused upload(s), ${files} stored file(s)`);
      })
      .catch((error: unknown) => logger({ component: "uploads" }).error({ err: error }, "upload sweep failed"));
    // The forms-folder contents kept at launch that no unfinished job names (server/jobs/job-files.ts).
    sweepJobFiles()
      .then((files) => {
        if (files > 0) logger({ component: "job-files" }).info(`swept ${files} launched file content(s) no unfinished job needs`);
      })
      .catch((error: unknown) => logger({ component: "job-files" }).error({ err: error }, "launched files sweep failed"));
  }, UPLOAD_SWEEP_MS);
  uploadSweeps.unref();
  // Retention (docs/operations.md, "Retention"): daily, only when a setting is on; one node at a time.
  const stopRetention = startRetentionSchedule(retentionSettings());
  // Git sources synced every N minutes (server/sources/sync.ts): every node checks, the sync
  // lease lets one of them sync a given source.
  const sourceSyncs = setInterval(() => {
    syncDueSources().catch((error: unknown) => logger({ component: "sources" }).error({ err: error }, "periodic source sync failed"));
  }, SOURCE_SYNC_CHECK_MS);
  sourceSyncs.unref();
  // Hosts of finished runs not written yet (server/jobs/hosts.ts): the backfill at start, then
  // now and then for runs whose end a stopped node did not get to. Writes are idempotent per job.
  const stopHostsCatchUp = startHostsCatchUp();
  // Schedules: every node looks every second; one claims each tick (server/schedules/scheduler.ts).
  const scheduler = new Scheduler(jobs);
  scheduler.start();

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.HOST === "0.0.0.0" ? "localhost" : config.HOST}:${port}`;
  // Webhooks and emails of the forms' `notify` (server/jobs/notify-delivery.ts): every node
  // sends; a delivery is claimed with a conditional update, so only one node sends it.
  const notifications = new NotificationSender({
    publicUrl: config.PLAYFORM_PUBLIC_URL ?? url,
    smtpUrl: config.PLAYFORM_SMTP_URL,
    smtpFrom: config.PLAYFORM_SMTP_FROM,
    backoffSeconds: config.PLAYFORM_NOTIFY_BACKOFF_SECONDS,
  });
  notifications.start();

  let localRte: LocalRte | null = null;
  if (localRunner) {
    maskInLogs([localRunner.token]);
    if (!localRunner.tokenReused) writeLocalToken(localDirs.stateDir, localRunner.token);
    localRte = new LocalRte({
      appUrl: `http://127.0.0.1:${port}`,
      tokenReused: localRunner.tokenReused,
      instanceId: localRunner.instanceId,
      capacity: config.PLAYFORM_LOCAL_RTE_CAPACITY,
      port: config.PLAYFORM_LOCAL_RTE_PORT,
      onStop: config.PLAYFORM_LOCAL_RTE_ON_STOP,
      dirs: localDirs,
      entry: rteEntry(),
      log,
    });
    localRte.start();
  }
  log(`Playform is running at ${url} (node ${config.PLAYFORM_NODE_ID})`);
  log(`Open ${url} and ${signIn}.`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      log(
        `${signal}: already stopping, waiting for the local RTE to drain (kill -9 stops the app at once; the RTE then finishes on its own and the next start adopts it; PLAYFORM_LOCAL_RTE_ON_STOP=keep does that at every stop)`,
      );
      return;
    }
    stopping = true;
    log(`${signal}: stopping`);
    const { directBroadcasts, feedReads, catchUpReads, broadcasts } = uiHub.stats;
    log(
      `live output since start: ${hub.batchesStored} batches stored (${directBroadcasts} broadcast as stored); ` +
        `followers' output reads: ${feedReads} shared (one per job per batch), ${catchUpReads} catch-up, ${broadcasts} broadcasts`,
    );
    void (async () => {
      dispatcher.stop();
      clearInterval(uploadSweeps);
      notifications.stop();
      stopRetention();
      stopHostsCatchUp();
      clearInterval(sourceSyncs);
      scheduler.stop();
      // First the local RTE, which drains through this app: its link, and so the HTTP and
      // socket servers, must stay open until it has delivered everything and exited.
      await localRte?.stop();
      await inbound.stop();
      hub.close();
      uiHub.close();
      await io.close();
      await bus.close();
      await closeDatabase();
      process.exit(0);
    })();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  logger().fatal(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
