/**
 * The start command's local runtime environment: a separate RTE process (never in-process:
 * the app must not run playbooks), restarted if it dies, stopped with the app.
 */
import { execa, type ResultPromise } from "execa";
import path from "node:path";

export interface LocalRteOptions {
  appUrl: string;
  token: string;
  /** `local-0`, or the next free `local-N` when several app nodes share a PostgreSQL database. */
  instanceId: string;
  capacity: number;
  port: number;
  entry: string[];
  log: (line: string) => void;
}

export class LocalRte {
  private child: ResultPromise | null = null;
  private stopping = false;
  private restarts = 0;

  constructor(private readonly options: LocalRteOptions) {}

  start(): void {
    const [command, ...args] = this.options.entry;
    const child = execa(command!, args, {
      // Only what a runner may know: the app's own secrets (database, encryption key, admin
      // password) stay with the app, exactly as for a runner on another machine.
      extendEnv: false,
      env: {
        ...runnerEnvironment(process.env),
        APP_URL: this.options.appUrl,
        RTE_TOKEN: this.options.token,
        RTE_INSTANCE_ID: this.options.instanceId,
        RTE_MAX_JOBS: String(this.options.capacity),
        PORT: String(this.options.port),
        RTE_SPOOL_PATH: process.env.RTE_SPOOL_PATH ?? path.resolve("data/rte/spool"),
        RTE_WORK_DIR: process.env.RTE_WORK_DIR ?? path.resolve("data/rte/work"),
      },
      stdout: "inherit",
      stderr: "inherit",
      reject: false,
    });
    this.child = child;
    void child.then((result) => {
      if (this.stopping) return;
      this.restarts++;
      const delay = Math.min(30_000, 1_000 * 2 ** Math.min(this.restarts, 5));
      this.options.log(`local RTE exited (${result.exitCode ?? result.signal}); restarting in ${delay / 1000}s`);
      setTimeout(() => this.start(), delay).unref();
    });
  }

  /** SIGTERM: the RTE drains (finishes or cancels its jobs, flushes its spool) and exits. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.child || this.child.exitCode !== null) return;
    this.child.kill("SIGTERM");
    await this.child;
  }
}

function runnerEnvironment(parent: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined || key.startsWith("PLAYFORM_") || key === "DATABASE_URL" || key === "ENCRYPTION_SECRET") continue;
    env[key] = value;
  }
  return env;
}
