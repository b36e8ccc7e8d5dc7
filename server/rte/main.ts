/**
 * Entry point of the runtime environment process (`npm run rte`, or PLAYFORM_ROLE=rte).
 */
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { RTE_VERSION, RteAgent } from "./agent";
import { loadRteEnv, type RteEnv } from "./env";
import { probeEnvironments } from "./environment-probe";
import { ansibleSettingsKeptBack } from "./playbook-command";
import { DEFAULT_ENVIRONMENT, loadEnvironments, type RteEnvironment } from "./environments";
import { startHealthServer } from "./health";
import { EXIT_LOCKED, LOCK_FILE, LockHeldError, acquireLock, type HeldLock } from "./instance-lock";
import { JoinRefusedError, obtainToken } from "./join";
import { callbackPluginDir, playbookInitScript, vaultPasswordScript } from "./ansible/plugin-path";
import { cleanUpAfterPreviousRun } from "./leftovers";
import { PlaybookUserError, checkReachable, resolvePlaybookUser, type PlaybookUser } from "./playbook-user";
import { detectSandbox } from "./sandbox";
import { PRIVATE_DIR_MODE, ensureOwnedDir, ensurePrivateDir } from "./private-fs";
import { initLogging, logSettings, logSettingsOrDefaults, logger, maskInLogs, type LogContext } from "../logging/logger";
import { loadTlsPair, usesTls, type TlsPair } from "./tls";
import { INBOUND_SOCKET_PATH, type EnvironmentReport } from "../protocol/rte-messages";

/** The RTE's log lines (server/logging): JSON lines with `source: "rte"`, its instance and runner. */
function log(message: string, context?: LogContext): void {
  if (context) logger().info(context, message);
  else logger().info(message);
}

/** A start-up error, written before the process exits. */
function fatal(error: unknown): void {
  logger().fatal(error instanceof Error ? error.message : String(error));
}

export async function runRte(): Promise<void> {
  // The local RTE writes to the output of the app that started it, which may be gone (killed
  // with the pipe it read from): a log line that cannot be written must not end the jobs.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  // Until the configuration is read (a bad LOG_LEVEL is reported like any bad setting).
  initLogging({ ...logSettingsOrDefaults(process.env), base: { source: "rte" } });
  let env;
  let environments: RteEnvironment[];
  try {
    env = loadRteEnv();
    const settings = logSettings(process.env);
    initLogging({ ...settings, base: { source: "rte", instance: env.RTE_INSTANCE_ID, runner: env.runnerName ?? undefined } });
    environments = loadEnvironments(env.RTE_ENVIRONMENTS, env.ANSIBLE_PLAYBOOK);
  } catch (error) {
    fatal(error instanceof Error ? new Error(error.message.replace(/^invalid configuration:/, "invalid RTE configuration:")) : error);
    process.exit(2);
  }
  // Forms that name no environment run in `default`: a file without one leaves them queued.
  if (!environments.some((e) => e.name === DEFAULT_ENVIRONMENT)) {
    logger().warn(
      `RTE_ENVIRONMENTS=${env.RTE_ENVIRONMENTS} lists no environment named ${DEFAULT_ENVIRONMENT}: jobs of forms that name no environment: (in form.yaml) are not sent to this runner`,
    );
  }
  let playbookUser: PlaybookUser | null;
  try {
    playbookUser = await resolvePlaybookUser(env, log);
  } catch (error) {
    fatal(error);
    process.exit(error instanceof PlaybookUserError ? 2 : 1);
  }
  // Probed while the RTE gets ready and connects: the app learns the result in `rte:environments`
  // once it is there (the connection does not wait for it; until then the app dispatches none
  // of this instance's jobs, since it does not know yet what the instance can run).
  const probing = probeAndLog(environments, env, playbookUser);
  // Before anything reads or cleans the spool, the work dir or the jobs folder: they must be
  // ours alone. The jobs folder is the one the playbook user may pass through (not list).
  const locks: HeldLock[] = [];
  try {
    for (const dir of new Set([env.spoolDir, env.workDir, env.jobsDir])) {
      if (dir === env.jobsDir) ensureOwnedDir(dir, playbookUser ? 0o711 : PRIVATE_DIR_MODE);
      else ensurePrivateDir(dir);
      const lock = acquireLock(path.join(dir, LOCK_FILE), env.RTE_INSTANCE_ID);
      locks.push(lock);
      if (lock.tookOver) {
        const h = lock.tookOver;
        log(`took over ${lock.file}: its holder (instance ${h.instanceId}, pid ${h.pid} on ${h.hostname}, since ${h.since}) is gone`);
      }
    }
  } catch (error) {
    for (const lock of locks) lock.release();
    fatal(error);
    process.exit(error instanceof LockHeldError ? EXIT_LOCKED : 1);
  }
  process.on("exit", () => {
    for (const lock of locks) lock.release();
    // The default jobs folder is in the temp folder, one per work dir: not left there empty.
    if (!env.RTE_JOBS_DIR) {
      try {
        fs.rmdirSync(env.jobsDir);
      } catch {
        // Not empty (a job's folder could not be removed): the next start cleans it.
      }
    }
  });
  if (playbookUser) {
    try {
      // Made here (the RTE's, 0711) to be checked: the agent's cache takes it as it is.
      ensureOwnedDir(env.requirementsDir, 0o711);
      checkReachable(
        playbookUser,
        env.jobsDir,
        found(callbackPluginDir),
        found(vaultPasswordScript),
        found(playbookInitScript),
        env.requirementsDir,
      );
    } catch (error) {
      fatal(error);
      process.exit(error instanceof PlaybookUserError ? 2 : 1);
    }
  }
  const keptBack = ansibleSettingsKeptBack(process.env, env.RTE_PLAYBOOK_ENV_PASS);
  if (keptBack.length > 0) {
    log(
      `playbooks do not get ${keptBack.join(", ")} from this runner's environment (not a setting of ansible-core, ` +
        "a secret, or a value holding a credential): name one in RTE_PLAYBOOK_ENV_PASS to pass it",
    );
  }
  // A previous process on this work dir may have died with playbooks running and secrets on
  // disk: end those and remove these before anything else (the spool stays, to be resent).
  try {
    await cleanUpAfterPreviousRun(env, log);
  } catch (error) {
    fatal(`cannot clean up after the previous run in ${env.workDir}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  // Inbound over https: the certificate the join request names (its fingerprint) and the
  // server presents, generated once when none is configured.
  let tls: TlsPair | null = null;
  if (usesTls(env)) {
    try {
      tls = await loadTlsPair(env, log);
    } catch (error) {
      fatal(`cannot load the TLS certificate: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(2);
    }
    log(`TLS certificate ${tls.source}, SHA-256 fingerprint ${tls.fingerprint}`);
  }
  let token: string;
  try {
    token = await obtainToken(env, RTE_VERSION, log, tls?.fingerprint ?? null);
  } catch (error) {
    fatal(error);
    process.exit(error instanceof JoinRefusedError ? 3 : 1);
  }
  maskInLogs([token, env.RTE_METRICS_TOKEN]);
  const sandboxed = await detectSandbox(env.sandbox, playbookUser, log, env.RTE_PLAYBOOK_SANDBOX !== undefined, env.RTE_SANDBOX_PROC);
  const agent = new RteAgent(env, token, log, playbookUser, sandboxed, environments);
  void probing.then((reports) => agent.reportEnvironments(reports));
  const health = await startHealthServer(agent, env.PORT, env.RTE_MAX_JOBS, tls ?? undefined, env.RTE_METRICS_TOKEN);
  const port = (health.address() as AddressInfo).port;
  log(`health endpoints on port ${port} (/live /ready /metrics)`);
  if (env.RTE_MODE === "inbound") {
    agent.listenInbound(health);
    log(
      `inbound: listening for the app on port ${port}${INBOUND_SOCKET_PATH} over ${tls ? "https" : "plain http (the app connects only if an admin allowed this runner without TLS)"}; ` +
        `the app connects to ${env.RTE_ADDRESS}`,
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received`);
    void agent.drain().finally(() => {
      health.close();
      log("stopped");
      process.exit(0);
    });
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

/** Probes the environments (environment-probe.ts) and logs what it found and how long that took. */
async function probeAndLog(environments: RteEnvironment[], env: RteEnv, playbookUser: PlaybookUser | null): Promise<EnvironmentReport[]> {
  const started = performance.now();
  const reports = await probeEnvironments(environments, {
    parentEnv: process.env,
    pass: env.RTE_PLAYBOOK_ENV_PASS,
    user: playbookUser ? { uid: playbookUser.uid, gid: playbookUser.primaryGid } : null,
  });
  const ms = Math.round(performance.now() - started);
  const found = reports.map((r) =>
    r.error === null
      ? `${r.name} (ansible-core ${r.ansibleCore}, Python ${r.python}, ${r.collections.length} collection(s))`
      : `${r.name} (broken)`,
  );
  log(`${reports.length} environment(s) probed in ${ms} ms: ${found.join(", ")}`);
  for (const report of reports) if (report.error !== null) logger().warn(`environment ${report.name}: ${report.error}`);
  return reports;
}

/** A path Playform ships, or null when it is missing (the job that needs it fails, saying so). */
function found(locate: () => string): string | null {
  try {
    return locate();
  } catch {
    return null;
  }
}
