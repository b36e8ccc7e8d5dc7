/**
 * The start command's local runtime environment: a separate RTE process (never in-process:
 * the app must not run playbooks), restarted if it dies, stopped with the app.
 */
import { execa, type ResultPromise } from "execa";
import path from "node:path";

export interface LocalRteOptions {
  appUrl: string;
  token: string;
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
      env: {
        APP_URL: this.options.appUrl,
        RTE_TOKEN: this.options.token,
        RTE_INSTANCE_ID: "local-0",
        RTE_MAX_JOBS: String(this.options.capacity),
        PORT: String(this.options.port),
        RTE_SPOOL_PATH: process.env.RTE_SPOOL_PATH ?? path.resolve("data/rte/spool"),
        RTE_WORK_DIR: process.env.RTE_WORK_DIR ?? path.resolve("data/rte/work"),
        // The app's own secrets stay with the app.
        DATABASE_URL: undefined,
        PLAYFORM_ADMIN_PASSWORD: undefined,
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
