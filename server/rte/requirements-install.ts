/**
 * Installing a job's requirements with its environment's ansible-galaxy, before its playbook.
 *
 * A requirements file is the form's, so hostile input: it names git URLs and tarballs, and an
 * install runs code (a role's git hooks, a collection's build). So ansible-galaxy runs exactly as
 * the playbook will: in the job's folder, as the playbook user with the job's group, with the
 * playbook's environment (playbookEnv: an allow list, none of the RTE's variables; the
 * environment's bin first on PATH), through playbook-init.py and, where bubblewrap works, in the
 * same sandbox (pid namespace, private /tmp); network on. It installs into a folder of the job
 * (`.playform_requirements`), which the cache takes over once it succeeded (requirements-cache.ts).
 * Everything it started ends with it. One limit for the whole install
 * (RTE_REQUIREMENTS_TIMEOUT_SECONDS); the job's cancel stops it.
 */
import path from "node:path";
import { execa } from "execa";
import { playbookInitScript } from "./ansible/plugin-path";
import { terminateGroup } from "./process-group";
import { STATUS_FD, wrapPlaybook, type PrivateTmp } from "./sandbox";

/** What is kept of galaxy's output for the job's reason: its last lines say why it failed. */
const REASON_LINES = 3;
const REASON_CHARS = 1_500;
const GRACE_MS = 2_000;

export class RequirementsInstallError extends Error {}

export interface GalaxyRun {
  /** The environment's ansible-galaxy (environmentProgram-like). */
  program: string;
  jobDir: string;
  /** Where the install goes: `<target>/collections`, `<target>/roles`. */
  target: string;
  files: readonly { path: string; collections: number; roles: number }[];
  galaxyServer: string | null;
  /** The command's environment, built as a playbook's (playbookEnv, environmentEnv). */
  env: Record<string, string>;
  user: { uid: number; gid: number } | null;
  sandboxed: boolean;
  privateTmp: PrivateTmp | null;
  timeoutMs: number;
  /** Each line galaxy prints, as it prints it. */
  say: (line: string) => void;
}

/** The ansible-galaxy commands for a job's requirements files: collections and roles each with their own. */
export function galaxyCommands(run: Pick<GalaxyRun, "files" | "target" | "galaxyServer">): string[][] {
  const server = run.galaxyServer !== null ? ["--server", run.galaxyServer] : [];
  const commands: string[][] = [];
  for (const file of run.files) {
    if (file.collections > 0)
      commands.push(["collection", "install", "-r", file.path, "-p", path.join(run.target, "collections"), ...server]);
    if (file.roles > 0) commands.push(["role", "install", "-r", file.path, "-p", path.join(run.target, "roles"), ...server]);
  }
  return commands;
}

/** One install: run() once; stop() (the job's cancel) ends the command running and the rest. */
export class GalaxyInstall {
  private pid: number | undefined;
  private stopped = false;
  private timedOut = false;

  constructor(private readonly run: GalaxyRun) {}

  stop(): void {
    this.stopped = true;
    if (this.pid !== undefined) void terminateGroup(this.pid, GRACE_MS).catch(() => undefined);
  }

  /** Resolves when every command succeeded; throws RequirementsInstallError (galaxy's last lines) or when stopped. */
  async install(): Promise<void> {
    const deadline = Date.now() + this.run.timeoutMs;
    for (const args of galaxyCommands(this.run)) {
      if (this.stopped) throw new RequirementsInstallError("the requirements install was cancelled");
      await this.runOne(args, deadline);
    }
  }

  private async runOne(args: string[], deadline: number): Promise<void> {
    const { run } = this;
    const command = wrapPlaybook({ file: run.program, args }, playbookInitScript(), null, run.sandboxed, run.privateTmp);
    const shown = `ansible-galaxy ${args.slice(0, 4).join(" ")}`;
    const child = execa(command.file, command.args, {
      cwd: run.jobDir,
      env: run.env,
      extendEnv: false,
      ...(run.user ? { uid: run.user.uid, gid: run.user.gid } : {}),
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "ignore", run.sandboxed ? "pipe" : "ignore"],
      buffer: false,
      reject: false,
      encoding: "utf8",
      forceKillAfterDelay: false,
    });
    this.pid = child.pid;
    if (this.stopped) this.stop();
    const last: string[] = [];
    const lines = (stream: NodeJS.ReadableStream | null | undefined) => {
      let partial = "";
      stream?.setEncoding("utf8");
      stream?.on("data", (text: string) => {
        const parts = (partial + text).split("\n");
        partial = parts.pop() ?? "";
        for (const line of parts) emit(line);
      });
      stream?.on("end", () => partial !== "" && emit(partial));
    };
    const emit = (line: string) => {
      run.say(line);
      if (line.trim() === "") return;
      last.push(line.trim());
      if (last.length > REASON_LINES) last.shift();
    };
    lines(child.stdout);
    lines(child.stderr);
    // Under bwrap the leader is bwrap, alive as long as anything in the namespace: galaxy's own end comes from PID 1.
    let ended: number | null | undefined;
    const galaxyExited = new Promise<void>((resolve) => {
      const statusPipe = run.sandboxed ? child.stdio[STATUS_FD] : undefined;
      if (!statusPipe || !("setEncoding" in statusPipe)) return;
      let said = "";
      statusPipe.setEncoding("utf8");
      statusPipe.on("data", (text: string) => {
        said += text;
        const match = /^(exit|signal) (\d+)\n/.exec(said);
        if (!match) return;
        ended = match[1] === "exit" ? Number(match[2]) : null;
        resolve();
      });
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(
        () => {
          this.timedOut = true;
          resolve();
        },
        Math.max(0, deadline - Date.now()),
      );
    });
    await Promise.race([galaxyExited, timeout, child.then(() => undefined)]);
    clearTimeout(timer);
    // Whatever the install started (a git child, a background process of a hook) ends with it.
    if (child.pid !== undefined) await terminateGroup(child.pid, run.sandboxed ? 100 : GRACE_MS).catch(() => undefined);
    const result = await child;
    const exitCode = ended !== undefined ? ended : typeof result.exitCode === "number" ? result.exitCode : null;
    if (this.timedOut) {
      throw new RequirementsInstallError(
        `${shown} did not finish within ${Math.round(run.timeoutMs / 1000)} s (RTE_REQUIREMENTS_TIMEOUT_SECONDS)`,
      );
    }
    if (this.stopped) throw new RequirementsInstallError("the requirements install was cancelled");
    if (exitCode === 0) return;
    const code = "code" in result ? result.code : undefined;
    const why =
      code === "ENOENT"
        ? `${command.file} is not installed on this runner`
        : exitCode === 127
          ? `${run.program} (or python3) is missing on this runner`
          : last.join(" ").slice(-REASON_CHARS) || "no output";
    throw new RequirementsInstallError(`${shown} failed (exit ${exitCode ?? result.signal ?? "?"}): ${why}`);
  }
}
