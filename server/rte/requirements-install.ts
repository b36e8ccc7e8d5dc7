/**
 * Installing a job's requirements before its playbook: requirements.yml with its environment's
 * ansible-galaxy (GalaxyInstall), requirements.txt with pip into a virtual environment layered on
 * its environment (PipInstall).
 *
 * A requirements file is the form's, so hostile input: it names git URLs and tarballs, and an
 * install runs code (a role's git hooks, a collection's build, a package's setup.py). So every
 * command of an install (ansible-galaxy, python -m venv, pip) runs exactly as
 * the playbook will: in the job's folder, as the playbook user with the job's group, with the
 * playbook's environment (playbookEnv: an allow list, none of the RTE's variables; the
 * environment's bin first on PATH) but the runner's configuration, never the form's (ANSIBLE_CONFIG
 * and PIP_CONFIG_FILE pinned: install-config.ts; a form's ansible.cfg would otherwise choose the
 * Galaxy server of an entry other forms share), through playbook-init.py and, where bubblewrap works, in the
 * same sandbox (pid namespace, private /tmp); network on. It installs into a folder of the job
 * (`.playform_requirements`), which the cache takes over once it succeeded (requirements-cache.ts).
 * Every Python an install runs itself (`python -c`, `python -m venv`, `python -m pip`) runs isolated
 * (`-I`, PYTHON_ISOLATED): `-c` and `-m` would put the working folder, the job's, first on
 * sys.path, and a form's `pip/__main__.py`, `venv/` or `json.py` ran in place of the module, in an
 * install whose entry other forms share (attack 8). `-I` also drops PYTHON* variables and the user
 * site (HOME is the job folder); it keeps site-packages and their .pth files, which the venv's
 * layering (LAYER_SCRIPT) needs.
 * Everything it started ends with it. One limit for the whole install
 * (RTE_REQUIREMENTS_TIMEOUT_SECONDS); the job's cancel stops it, and so does its job's disk check
 * once the install took more than RTE_REQUIREMENTS_INSTALL_MAX_BYTES (overLimit): what a hostile
 * file names (a huge wheel, a collection tarball, a git repository) would otherwise fill the
 * runner's disk, uncounted by the job's own limit, before any playbook runs.
 */
import path from "node:path";
import { execa } from "execa";
import { playbookInitScript } from "./ansible/plugin-path";
import { terminateGroup } from "./process-group";
import { ENVIRONMENT_PYTHON_SCRIPT, LAYER_SCRIPT, parseAnsibleInterpreter, pipInstallArgs, type PipSettings } from "./requirements-pip";
import { STATUS_FD, wrapPlaybook, type PrivateTmp, type Sandboxed } from "./sandbox";

/** What is kept of galaxy's output for the job's reason: its last lines say why it failed. */
const REASON_LINES = 3;
const REASON_CHARS = 1_500;
const GRACE_MS = 2_000;
/** Python's isolated mode: no working folder (the job's) on sys.path, no PYTHON* variables, no user site. */
const PYTHON_ISOLATED = "-I";

export class RequirementsInstallError extends Error {}

/** How an install's commands run: where, as whom, in which sandbox, for how long. */
export interface SandboxedRun {
  jobDir: string;
  /** The command's environment, built as a playbook's (playbookEnv, environmentEnv). */
  env: Record<string, string>;
  user: { uid: number; gid: number } | null;
  sandboxed: Sandboxed;
  privateTmp: PrivateTmp | null;
  timeoutMs: number;
  /** Each line the commands print, as they print it. */
  say: (line: string) => void;
}

export interface GalaxyRun extends SandboxedRun {
  /** The environment's ansible-galaxy (environmentProgram-like). */
  program: string;
  /** Where the install goes: `<target>/collections`, `<target>/roles`. */
  target: string;
  files: readonly { path: string; collections: number; roles: number }[];
  galaxyServer: string | null;
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

/**
 * Commands of one install, each run as the playbook will run (see the header): stop() (the job's
 * cancel) ends the command running and the rest. One deadline for them all.
 */
export class SandboxedInstall {
  private pid: number | undefined;
  protected stopped = false;
  private timedOut = false;
  private deadline: number | null = null;
  /** Why the install was stopped for its disk use (overLimit): its failure. */
  private overLimitReason: string | null = null;

  constructor(protected readonly run: SandboxedRun) {}

  stop(): void {
    this.stopped = true;
    if (this.pid !== undefined) void terminateGroup(this.pid, GRACE_MS).catch(() => undefined);
  }

  /**
   * Stops the install as stop() does, but as a failure of the install, `reason`, not a cancel:
   * the cache records it and the jobs waiting for this install fail with it.
   */
  overLimit(reason: string): void {
    this.overLimitReason ??= reason;
    this.stop();
  }

  /** The process group leader of the command running (whose tree's deleted open files count towards its disk use). */
  get processGroup(): number | undefined {
    return this.pid;
  }

  protected checkStopped(): void {
    if (this.overLimitReason !== null) throw new RequirementsInstallError(this.overLimitReason);
    if (this.stopped) throw new RequirementsInstallError("the requirements install was cancelled");
  }

  /**
   * Runs `file args` (the whole install shares one deadline); resolves with its output lines
   * (stdout and stderr), each also said unless `quiet`. Throws RequirementsInstallError naming
   * `shown` with the command's last lines.
   */
  protected async command(file: string, args: string[], shown: string, quiet = false): Promise<string[]> {
    this.deadline ??= Date.now() + this.run.timeoutMs;
    this.checkStopped();
    const { run } = this;
    const deadline = this.deadline;
    const command = wrapPlaybook({ file, args }, playbookInitScript(), null, run.sandboxed, run.privateTmp);
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
    const all: string[] = [];
    const emit = (line: string) => {
      all.push(line);
      if (!quiet) run.say(line);
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
    if (this.overLimitReason !== null) throw new RequirementsInstallError(this.overLimitReason);
    if (this.timedOut) {
      throw new RequirementsInstallError(
        `${shown} did not finish within ${Math.round(run.timeoutMs / 1000)} s (RTE_REQUIREMENTS_TIMEOUT_SECONDS)`,
      );
    }
    if (this.stopped) throw new RequirementsInstallError("the requirements install was cancelled");
    if (exitCode === 0) return all;
    const code = "code" in result ? result.code : undefined;
    const why =
      code === "ENOENT"
        ? `${command.file} is not installed on this runner`
        : exitCode === 127
          ? `${file} (or python3) is missing on this runner`
          : last.join(" ").slice(-REASON_CHARS) || "no output";
    throw new RequirementsInstallError(`${shown} failed (exit ${exitCode ?? result.signal ?? "?"}): ${why}`);
  }
}

/** Installs a job's requirements.yml files with the environment's ansible-galaxy. */
export class GalaxyInstall extends SandboxedInstall {
  constructor(private readonly galaxy: GalaxyRun) {
    super(galaxy);
  }

  /** Resolves when every command succeeded; throws RequirementsInstallError (galaxy's last lines) or when stopped. */
  async install(): Promise<void> {
    for (const args of galaxyCommands(this.galaxy)) {
      await this.command(this.galaxy.program, args, `ansible-galaxy ${args.slice(0, 4).join(" ")}`);
    }
  }
}

export interface PipRun extends SandboxedRun {
  /** The environment's ansible-playbook (environmentProgram): asked which Python it runs under. */
  ansiblePlaybook: string;
  /** The job's requirements.txt, relative to its folder. */
  file: string;
  /** Where the virtual environment is made: `<target>/venv`. */
  target: string;
  settings: PipSettings;
}

/** What a pip install recorded with its entry: how the job's ansible-playbook runs in the venv. */
export interface VenvDetails {
  /** The environment's Python the venv was made with. */
  python: string;
  /** The environment's ansible-playbook script, run by the venv's python. */
  ansiblePlaybook: string;
}

/**
 * Installs a job's requirements.txt into a virtual environment layered on its environment:
 * made with the very Python the environment's ansible-playbook runs under (`--version` names it),
 * with --system-site-packages and a .pth of the environment's own package folders (LAYER_SCRIPT),
 * so ansible-core and everything of the environment stays importable and the requirements come
 * first. Then pip installs the file with the runner's index settings.
 */
export class PipInstall extends SandboxedInstall {
  constructor(private readonly pip: PipRun) {
    super(pip);
  }

  async install(): Promise<VenvDetails> {
    const { pip } = this;
    const version = await this.command(pip.ansiblePlaybook, ["--version"], `${pip.ansiblePlaybook} --version`, true);
    const found = parseAnsibleInterpreter(version.join("\n"));
    if (found.python === null || found.script === null) {
      throw new RequirementsInstallError(
        `${pip.ansiblePlaybook} --version names no Python interpreter or executable location (ansible-core 2.11 or later prints them): ` +
          "the environment's Python cannot be found for requirements.txt",
      );
    }
    const python = parseEnvironmentPython(
      await this.command(
        found.python,
        [PYTHON_ISOLATED, "-c", ENVIRONMENT_PYTHON_SCRIPT],
        `${found.python} (the environment's Python)`,
        true,
      ),
    );
    const venv = path.join(pip.target, "venv");
    // The environment's pip, if it has one, is importable in the venv (the layered folders) and installs into it.
    const venvArgs = [PYTHON_ISOLATED, "-m", "venv", "--system-site-packages", ...(python.pip ? ["--without-pip"] : []), venv];
    pip.say(`requirements: python ${found.python} ${venvArgs.slice(0, -1).join(" ")} (layered on the environment's packages)`);
    await this.command(found.python, venvArgs, `${found.python} -m venv`);
    const folders = python.folders;
    const venvPython = path.join(venv, "bin", "python");
    await this.command(
      venvPython,
      [PYTHON_ISOLATED, "-c", LAYER_SCRIPT, JSON.stringify(folders)],
      "the new virtual environment's python",
      true,
    );
    await this.command(venvPython, [PYTHON_ISOLATED, "-m", "pip", ...pipInstallArgs(pip.file, pip.settings)], `pip install -r ${pip.file}`);
    return { python: found.python, ansiblePlaybook: found.script };
  }
}

function parseEnvironmentPython(lines: readonly string[]): { folders: string[]; pip: boolean } {
  for (const line of [...lines].reverse()) {
    try {
      const parsed = JSON.parse(line) as { folders?: unknown; pip?: unknown };
      if (Array.isArray(parsed.folders) && parsed.folders.every((p) => typeof p === "string") && typeof parsed.pip === "boolean") {
        return { folders: parsed.folders as string[], pip: parsed.pip };
      }
    } catch {
      // A warning line.
    }
  }
  throw new RequirementsInstallError("the environment's Python did not list its package folders");
}
