/**
 * One job on this RTE: lay out its files, run ansible-playbook, stream what it prints, clean up.
 *
 * The playbook runs with execa, no shell, in its own process group (detached), so a cancel
 * can signal the whole tree (ssh, connection plugins, modules) and not only ansible-playbook.
 */
import fs from "node:fs";
import path from "node:path";
import { execa } from "execa";
import type { FinalStatus, JobDispatch, JobSecrets, UnnumberedItem } from "../protocol/rte-messages";
import { createMasker } from "../security/mask";
import { ansibleEventEnv, vaultPasswordScript } from "./ansible/plugin-path";
import type { RteEnv } from "./env";
import { RTE_OWN_VARIABLES } from "./env";
import type { FileCache, FetchFiles } from "./file-cache";
import { OutputBatcher } from "./output-batcher";
import { playbookArgs, playbookEnv } from "./playbook-command";

const EVENTS_FD = 3;

export interface JobRunDeps {
  env: RteEnv;
  cache: FileCache;
  fetchFiles: FetchFiles;
  emit: (items: UnnumberedItem[]) => void;
  log: (message: string) => void;
}

export class JobRun {
  private pid: number | undefined;
  private cancelled = false;
  private killTimer: NodeJS.Timeout | null = null;
  readonly finished: Promise<void>;

  constructor(
    private readonly job: JobDispatch,
    private readonly secrets: JobSecrets,
    private readonly deps: JobRunDeps,
    startCancelled: boolean,
  ) {
    this.cancelled = startCancelled;
    this.finished = this.run();
  }

  get id(): number {
    return this.job.jobId;
  }

  /** SIGTERM to the whole process group, SIGKILL after the grace period. */
  cancel(): void {
    if (this.cancelled && this.killTimer) return;
    this.cancelled = true;
    const pid = this.pid;
    if (!pid) return;
    this.signalGroup(pid, "SIGTERM");
    this.killTimer = setTimeout(() => this.signalGroup(pid, "SIGKILL"), this.deps.env.RTE_KILL_GRACE_SECONDS * 1000);
    this.killTimer.unref();
  }

  private signalGroup(pid: number, signal: NodeJS.Signals): void {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  private paths() {
    const { workDir } = this.deps.env;
    const id = this.job.jobId;
    const jobDir = path.join(workDir, "jobs", String(id));
    return {
      jobDir,
      extravars: path.join(workDir, "extravars", `extravars_${id}.json`),
      hidden: path.join(workDir, "extravars", `.extravars_${id}_hidden.json`),
      // Inside the job folder, so it goes with the folder whatever else fails in cleanup.
      sshKey: path.join(jobDir, `.playform_ssh_key_${id}`),
    };
  }

  private async run(): Promise<void> {
    const mask = createMasker(this.secrets.maskValues);
    const batcher = new OutputBatcher({
      intervalMs: 500,
      maxBatchBytes: 64 * 1024,
      maxBuffer: this.deps.env.PROCESS_MAX_BUFFER,
      mask,
      emit: this.deps.emit,
    });
    const paths = this.paths();
    let status: FinalStatus = "failed";
    let exitCode: number | null = null;
    let reason: string | null = null;
    try {
      this.deps.emit([{ kind: "start", ts: Date.now() / 1000 }]);
      if (this.cancelled) {
        status = "aborted";
        reason = "aborted before it started";
        return;
      }
      const { fetched, cached } = await this.deps.cache.materialize(this.job.manifest, paths.jobDir, this.deps.fetchFiles);
      const source = this.deps.env.RTE_FILES === "local" ? "read from the shared folder" : "fetched from the app";
      batcher.log(`job files ready: ${fetched} ${source}, ${cached} from the cache`);
      fs.mkdirSync(path.dirname(paths.extravars), { recursive: true, mode: 0o700 });
      fs.writeFileSync(paths.extravars, JSON.stringify(this.job.extravars), { mode: 0o600 });
      const hidden = { ...this.secrets.hiddenExtravars };
      const { sshKey } = this.secrets;
      if (sshKey) {
        // 0600 or ssh refuses the key ("UNPROTECTED PRIVATE KEY FILE"); "wx" so a form file of
        // the same name is never overwritten or handed to ssh instead.
        fs.writeFileSync(paths.sshKey, sshKey.privateKey, { mode: 0o600, flag: "wx" });
        hidden.ansible_user = sshKey.username;
        hidden.ansible_ssh_private_key_file = paths.sshKey;
      }
      fs.writeFileSync(paths.hidden, JSON.stringify(hidden), { mode: 0o600 });

      const args = playbookArgs({
        playbook: this.job.playbook,
        inventories: this.job.inventories,
        extravarsFile: paths.extravars,
        hiddenExtravarsFile: paths.hidden,
        options: this.job.options,
        vaultPasswordScript: this.secrets.vaultPassword !== null ? vaultPasswordScript() : null,
      });
      batcher.start();
      const child = execa(this.deps.env.ANSIBLE_PLAYBOOK, args, {
        cwd: paths.jobDir,
        env: playbookEnv(process.env, RTE_OWN_VARIABLES, ansibleEventEnv(EVENTS_FD)),
        extendEnv: false,
        detached: true,
        // fd 3 is the callback plugin's event side channel (PLAYFORM_EVENTS_FD).
        stdio: [this.secrets.vaultPassword !== null ? "pipe" : "ignore", "pipe", "pipe", "pipe"],
        buffer: false,
        reject: false,
        encoding: "utf8",
        // Our own grace period below replaces execa's; it must not SIGKILL early on its own.
        forceKillAfterDelay: false,
      });
      this.pid = child.pid;
      // Read once by the vault password script at start-up; the pipe then stays at EOF, so a
      // playbook that prompts (vars_prompt, pause) gets no input, as without a vault password.
      if (this.secrets.vaultPassword !== null) child.stdin?.end(this.secrets.vaultPassword + "\n");
      if (this.cancelled) this.cancel();
      child.stdout?.setEncoding("utf8").on("data", (text: string) => batcher.write("stdout", text));
      child.stderr?.setEncoding("utf8").on("data", (text: string) => batcher.write("stderr", text));
      const eventsPipe = child.stdio[EVENTS_FD];
      if (eventsPipe && "setEncoding" in eventsPipe) {
        eventsPipe.setEncoding("utf8");
        eventsPipe.on("data", (text: string) => batcher.writeEvents(text));
      }
      const result = await child;
      exitCode = typeof result.exitCode === "number" ? result.exitCode : null;
      const spawnError = "code" in result && result.code === "ENOENT";
      if (spawnError) {
        reason = `${this.deps.env.ANSIBLE_PLAYBOOK} is not installed on this runner (Debian: apt-get install ansible)`;
        batcher.log(reason);
      } else if (this.cancelled) {
        status = "aborted";
        reason = "aborted on request";
      } else if (exitCode === 0) {
        status = "success";
      } else if (exitCode === null) {
        reason = result.signal ? `ansible-playbook was killed by ${result.signal}` : "ansible-playbook ended without an exit code";
      }
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
      batcher.log(`job failed before the playbook ran: ${reason}`);
    } finally {
      if (this.killTimer) clearTimeout(this.killTimer);
      batcher.stop();
      this.cleanup(paths);
      this.deps.emit([{ kind: "end", ts: Date.now() / 1000, status, exitCode, reason }]);
    }
  }

  private cleanup(paths: ReturnType<JobRun["paths"]>): void {
    const remove = (target: string) => {
      try {
        fs.rmSync(target, { recursive: true, force: true });
      } catch (error) {
        this.deps.log(`job ${this.job.jobId}: could not remove ${target}: ${String(error)}`);
      }
    };
    // Removed on its own before the folder: if removing the folder fails halfway, the key is
    // not among what is left behind.
    remove(paths.sshKey);
    remove(paths.hidden);
    if (!this.job.options.keepExtravars) remove(paths.extravars);
    remove(paths.jobDir);
  }
}
