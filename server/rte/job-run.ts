/**
 * One job on this RTE: lay out its files, run ansible-playbook, stream what it prints, clean up.
 *
 * The playbook runs with execa, no shell, in its own process group (detached), so a cancel
 * can signal the whole tree (ssh, connection plugins, modules) and not only ansible-playbook.
 * Whatever the end (success, failure, abort, drain), the group is ended before the job is:
 * SIGTERM, then SIGKILL after RTE_KILL_GRACE_SECONDS if anything of it still lives, and only
 * then are the files removed and the `end` item sent.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Writable } from "node:stream";
import { execa } from "execa";
import type { FinalStatus, JobDispatch, JobSecrets, UnnumberedItem } from "../protocol/rte-messages";
import { createMasker } from "../security/mask";
import { maskInLogs, type LogContext } from "../logging/logger";
import { ansibleEventEnv, playbookInitScript, vaultPasswordScript } from "./ansible/plugin-path";
import type { RteEnv } from "./env";
import type { FileCache, FetchFiles } from "./file-cache";
import { fileVarPaths, handOver } from "./job-folder";
import { RUN_ID_VARIABLE, newRunId, type RunningJobs, type RunningRecord } from "./leftovers";
import { OutputBatcher } from "./output-batcher";
import {
  environmentEnv,
  environmentFolders,
  environmentProgram,
  playbookArgs,
  playbookCommand,
  playbookEnv,
  type RequirementsPaths,
} from "./playbook-command";
import type { RteEnvironment } from "./environments";
import { jobGid, type PlaybookUser } from "./playbook-user";
import { ensurePrivateDir } from "./private-fs";
import { bootId, goneWithin, processInfo, setAutogroupNice, terminateGroup } from "./process-group";
import { checkDisk, diskTaken, removeTree, watchDisk } from "./disk-usage";
import {
  BECOME_REFUSED_NOTE,
  SECRETS_FD,
  STATUS_FD,
  ansibleStateInJob,
  becomeRefusedWatch,
  ownUserAnsibleTmp,
  preparePrivateTmp,
  privateTmpMountPoints,
  runnerFolders,
  sandboxSupportFolders,
  wrapPlaybook,
  type PrivateTmp,
  type Sandboxed,
} from "./sandbox";
import { SHORT_KEY_LENGTH, findRequirementsFiles, manifestDigest, readJobRequirements, type JobRequirements } from "./requirements";
import { InstallCancelled, InstallFailedElsewhere, type CacheEntry, type RequirementsCache } from "./requirements-cache";
import { GalaxyInstall, PipInstall, RequirementsInstallError, type SandboxedInstall, type VenvDetails } from "./requirements-install";
import { installConfigEnv } from "./install-config";
import { endInstallLeftovers } from "./install-leftovers";
import { findPipRequirementsFile, isFolderLink, readPipRequirements, type PipSettings } from "./requirements-pip";

const EVENTS_FD = 3;
/**
 * Once the group is gone its pipes close; a process that left the group (setsid) and kept
 * them open must not hold the job's end forever: after this long the RTE stops reading.
 */
const PIPES_CLOSE_MS = 5_000;
/**
 * Once ansible-playbook has ended, how long its process group may take to end by itself before
 * what is still in it counts as left behind (and is sent SIGTERM). ansible-playbook's workers
 * and Python's helpers are often still on their way out at that instant: without this wait the
 * runner reported "the playbook left 1 process(es)" at the end of most clean jobs.
 */
const SETTLE_MS = 1_000;

export interface JobRunDeps {
  env: RteEnv;
  cache: FileCache;
  fetchFiles: FetchFiles;
  emit: (items: UnnumberedItem[]) => void;
  log: (message: string, context?: LogContext) => void;
  /** Where the job is recorded while it runs, for a later start to clean up after a crash. */
  running: RunningJobs;
  /** Who the playbook runs as; null: as the RTE itself. */
  playbookUser: PlaybookUser | null;
  /** Whether the playbook runs in a pid namespace of its own under bubblewrap, and with which /proc (sandbox.ts). */
  sandboxed: Sandboxed;
  /** The environment the dispatch names (environments.ts): its ansible-playbook and paths. */
  environment: RteEnvironment;
  /**
   * Where a job's requirements.yml and requirements.txt are installed (requirements-cache.ts), and
   * the environment's ansible-core and Python versions as the probe found them (null: not probed
   * yet, or broken), for the keys.
   */
  requirements: { cache: RequirementsCache; ansibleCore: string | null; python?: string | null };
}

export class JobRun {
  private pid: number | undefined;
  private cancelled = false;
  /**
   * Who cancelled: an abort on request (the app's cancel), the RTE's own drain running out, or
   * the job's disk use passing RTE_JOB_DISK_LIMIT (then the job fails, with `diskReason`).
   */
  private cancelledBy: "request" | "drain" | "disk" = "request";
  private diskReason: string | null = null;
  /** Bytes of output the playbook printed that are stored: each stream up to PROCESS_MAX_BUFFER. */
  private readonly printed = { stdout: 0, stderr: 0, events: 0 };
  private stopWatching: () => void = () => undefined;
  /** PID 1 of the playbook's namespace said ansible-playbook ended (under bwrap). */
  private ansibleEnded = false;
  /** Ending the process group: started by a cancel, or when ansible-playbook exits. */
  private ending: Promise<void> | null = null;
  private batcher: OutputBatcher | null = null;
  /** The requirements cache entries this job obtained (held until it ends: RequirementsCache.release). */
  private readonly heldEntries: string[] = [];
  /** The requirements install running, if any: a cancel stops it. */
  private install: SandboxedInstall | null = null;
  /** In the environment of everything the playbook starts: see leftovers.ts. */
  private readonly runId = newRunId();
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

  /**
   * SIGTERM to the whole process group, SIGKILL after the grace period (see endGroup). `drain`:
   * nobody asked, the RTE is stopping and RTE_DRAIN_SECONDS ran out; the job's output and its
   * end say so, so it is never mistaken for an abort on request.
   */
  cancel(by: "request" | "drain" | "disk" = "request"): void {
    // A cancel that arrives once ansible-playbook has ended stops nothing and must not turn its
    // real end into an abort: an RTE frozen (SIGSTOP) while its playbook finished reads the
    // playbook's end and the app's cancel of the abandoned job in the same turn, in either order.
    if (!this.cancelled && this.playbookEnded()) {
      this.deps.log(`job ${this.job.jobId}: cancel (${by}) after the playbook ended: nothing to stop`, { jobId: this.job.jobId });
      return;
    }
    if (!this.cancelled && by === "drain") {
      this.cancelledBy = "drain";
      this.batcher?.log(`${drainReason(this.deps.env.RTE_DRAIN_SECONDS)}: the playbook is cancelled (SIGTERM to its process group)`);
      this.deps.log(`job ${this.job.jobId}: drain time ran out, cancelling it`, { jobId: this.job.jobId });
    }
    this.cancelled = true;
    this.install?.stop();
    // Before the spawn there is nothing to signal: run() checks the flag once it has a pid.
    if (this.pid !== undefined) void this.endGroup();
  }

  /** Whether ansible-playbook has ended: PID 1 said so (under bwrap), or the leader is gone or a zombie. */
  private playbookEnded(): boolean {
    if (this.ansibleEnded) return true;
    if (this.pid === undefined) return false;
    const leader = processInfo(this.pid);
    return leader === null || leader.zombie;
  }

  /**
   * Ends the playbook's process group; the same promise for every caller, so a cancel during
   * the grace period, or the leader's exit after a cancel, changes nothing.
   */
  private endGroup(): Promise<void> {
    if (this.pid === undefined) return Promise.resolve();
    this.ending ??= this.terminate(this.pid);
    return this.ending;
  }

  private async terminate(pgid: number): Promise<void> {
    const grace = this.deps.env.RTE_KILL_GRACE_SECONDS;
    const { gone, found, killed } = await terminateGroup(pgid, grace * 1000);
    const say = (text: string) => {
      this.batcher?.log(text);
      this.deps.log(`job ${this.job.jobId}: ${text}`, { jobId: this.job.jobId });
    };
    // Under bwrap the group's leader is bwrap and its child PID 1 of the playbook's namespace:
    // they are how the playbook runs, not what it left behind.
    const left = this.deps.sandboxed ? found.filter((pid) => pid !== pgid && processInfo(pid)?.ppid !== pgid) : found;
    if (!this.cancelled && left.length > 0) {
      say(`the playbook left ${left.length} process(es) in its process group (pid ${left.join(", ")}): sent SIGTERM to the group`);
    }
    if (killed) say(`process group ${pgid} still alive ${grace}s after SIGTERM (RTE_KILL_GRACE_SECONDS): sent SIGKILL`);
    if (!gone) say(`process group ${pgid} is still alive after SIGKILL (processes this runner may not signal?): left as it is`);
  }

  private paths() {
    const id = this.job.jobId;
    const jobDir = path.join(this.deps.env.jobsDir, String(id));
    return {
      jobDir,
      // Everything the playbook reads is in its folder, the one folder its user may enter (the
      // work dir is the RTE's alone), and goes with the folder whatever else fails in cleanup.
      extravars: path.join(jobDir, `.playform_extravars_${id}.json`),
      hidden: path.join(jobDir, `.playform_hidden_extravars_${id}.json`),
      sshKey: path.join(jobDir, `.playform_ssh_key_${id}`),
      /** The copy a form with keepExtravars keeps after the job, where only the RTE reads it. */
      kept: path.join(this.deps.env.workDir, "extravars", `extravars_${id}.json`),
      /** Where ansible-galaxy installs the job's requirements before the cache takes them over. */
      requirements: path.join(jobDir, ".playform_requirements"),
      /** Where the virtual environment of its requirements.txt is made before the cache takes it over. */
      pipRequirements: path.join(jobDir, ".playform_pip_requirements"),
    };
  }

  private async run(): Promise<void> {
    const mask = createMasker(this.secrets.maskValues);
    // The RTE's own log lines about this job get the same masking as its output, while it runs.
    const unmask = maskInLogs(this.secrets.maskValues);
    const batcher = new OutputBatcher({
      intervalMs: 500,
      maxBatchBytes: 64 * 1024,
      maxBuffer: this.deps.env.PROCESS_MAX_BUFFER,
      mask,
      emit: this.deps.emit,
    });
    this.batcher = batcher;
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
      // A form that asks for no network is never run with it: without bwrap there is no network
      // namespace to give it.
      if (this.job.options.network === false && !this.deps.sandboxed) {
        reason =
          "the form asks for a playbook without network (sandbox: {network: false}), and this runner has no sandbox " +
          "(bubblewrap is missing or does not work, or RTE_SANDBOX=none): it does not run the playbook";
        batcher.log(reason);
        return;
      }
      // Before any file of the job exists: a crash from here on leaves a record to clean up by.
      const record: RunningRecord = {
        jobId: this.job.jobId,
        runId: this.runId,
        keepExtravars: this.job.options.keepExtravars,
        pgid: null,
        leaderStartTime: null,
        bootId: null,
      };
      this.deps.running.record(record);
      const { fetched, cached } = await this.deps.cache.materialize(this.job.manifest, paths.jobDir, this.deps.fetchFiles);
      const uploads = Object.keys(this.job.fileVars ?? {}).length > 0 ? " (uploaded files from the app)" : "";
      const source = this.deps.env.RTE_FILES === "local" ? `read from the shared folder${uploads}` : "fetched from the app";
      batcher.log(`job files ready: ${fetched} ${source}, ${cached} from the cache`);
      // File fields: the app sends the upload's path relative to the job folder, which only
      // this RTE knows; the playbook gets the absolute one.
      const extravars = { ...this.job.extravars, ...fileVarPaths(paths.jobDir, this.job.manifest, this.job.fileVars ?? {}) };
      // "wx": a form file of the same name is never overwritten, or handed to ansible or ssh instead.
      fs.writeFileSync(paths.extravars, JSON.stringify(extravars), { mode: 0o600, flag: "wx" });
      if (this.job.options.keepExtravars) {
        ensurePrivateDir(path.dirname(paths.kept));
        fs.writeFileSync(paths.kept, JSON.stringify(extravars), { mode: 0o600 });
      }
      const hidden = { ...this.secrets.hiddenExtravars };
      const { sshKey } = this.secrets;
      if (sshKey) {
        // 0600 and the playbook user's (handOver) or ssh refuses the key ("UNPROTECTED PRIVATE KEY FILE").
        fs.writeFileSync(paths.sshKey, sshKey.privateKey, { mode: 0o600, flag: "wx" });
        hidden.ansible_user = sshKey.username;
        hidden.ansible_ssh_private_key_file = paths.sshKey;
      }
      // The hidden extravars never touch the disk: playbook-init.py hands them to ansible
      // through a FIFO at paths.hidden (-e @it), read once at start and unlinked as soon as
      // ansible has opened it, so no secrets file is there to be left behind, whatever happens
      // to this process.
      const hiddenJson = JSON.stringify(hidden);
      const initScript = playbookInitScript();
      const user = this.deps.playbookUser;
      const gid = user ? jobGid(user, this.job.jobId) : null;
      const { sandboxed } = this.deps;
      const { environment } = this.deps;
      const keyStarted = performance.now();
      const requirements = this.findRequirements(paths.jobDir);
      const keyMs = performance.now() - keyStarted;
      const pipStarted = performance.now();
      const pipRequirements = this.findPipRequirements(paths.jobDir);
      const pipKeyMs = performance.now() - pipStarted;
      const findLinks = this.pipSettings().findLinks;
      // The environment's folders stay reachable under the private /tmp (one may lie in /tmp).
      const { privateTmp, tmpdir } = preparePrivateTmp(
        paths.jobDir,
        sandboxed,
        this.deps.env.RTE_PLAYBOOK_PRIVATE_TMP,
        [
          ...sandboxSupportFolders(),
          ...environmentFolders(environment),
          // pip reads its find-links folder (one in /tmp included: a wheel folder of the tests).
          ...(pipRequirements && findLinks !== null && isFolderLink(findLinks) ? [findLinks] : []),
        ],
        runnerFolders(this.deps.env),
        user && gid !== null ? { uid: user.uid, gid } : null,
      );
      if (privateTmp && !user) privateTmp.binds = ownUserAnsibleTmp(privateTmp);
      if (requirements) {
        // Before the folder is handed over: made by the RTE, never where the job's code put a link.
        privateTmpMountPoints(privateTmp, [path.join(this.deps.requirements.cache.dir, requirements.key)]);
        fs.mkdirSync(paths.requirements, { mode: 0o700 });
      }
      if (pipRequirements) {
        privateTmpMountPoints(privateTmp, [path.join(this.deps.requirements.cache.dir, pipRequirements.key)]);
        fs.mkdirSync(paths.pipRequirements, { mode: 0o700 });
      }
      if (user && gid !== null) handOver(paths.jobDir, { uid: user.uid, gid });

      const args = playbookArgs({
        playbook: this.job.playbook,
        inventories: this.job.inventories,
        extravarsFile: paths.extravars,
        hiddenExtravarsFile: paths.hidden,
        options: this.job.options,
        vaultPasswordScript: this.secrets.vaultPassword !== null ? vaultPasswordScript() : null,
        preview: this.job.preview === true,
      });
      // As another user: a home and ansible's temp files of its own, in its folder (the user's
      // home is /nonexistent). The remote temp folder is "$HOME/.ansible/tmp", expanded by the
      // target's shell: for the local connection this HOME, on a managed host the login's home
      // (the default "~/.ansible/tmp" would be expanded as ~playform-run, /nonexistent, here).
      const identity: Record<string, string> = user
        ? {
            HOME: paths.jobDir,
            USER: user.name,
            LOGNAME: user.name,
            ANSIBLE_LOCAL_TEMP: path.join(paths.jobDir, ".ansible", "tmp"),
            ANSIBLE_REMOTE_TEMP: process.env.ANSIBLE_REMOTE_TEMP ?? "$HOME/.ansible/tmp",
          }
        : sandboxed
          ? ansibleStateInJob(paths.jobDir)
          : {};
      identity.TMPDIR = tmpdir;
      batcher.start();
      let installed: CacheEntry | null = null;
      let venv: { entry: CacheEntry; details: VenvDetails } | null = null;
      if (requirements || pipRequirements) {
        const runAs = { user: user && gid !== null ? { uid: user.uid, gid } : null, privateTmp, identity };
        try {
          if (requirements) installed = await this.obtainRequirements(requirements, keyMs, paths, runAs);
          if (pipRequirements && !this.cancelled) venv = await this.obtainPipRequirements(pipRequirements, pipKeyMs, paths, runAs);
        } catch (error) {
          const ofRequirements =
            error instanceof RequirementsInstallError || error instanceof InstallFailedElsewhere || error instanceof InstallCancelled;
          if (!ofRequirements) throw error;
          if (this.cancelled) {
            status = "aborted";
            reason = this.cancelledBy === "drain" ? drainReason(this.deps.env.RTE_DRAIN_SECONDS) : "aborted on request";
          } else reason = `requirements: ${error.message}`;
          batcher.log(`requirements: ${error.message}: the playbook does not run`);
          return;
        }
        if (this.cancelled) {
          status = "aborted";
          reason = this.cancelledBy === "drain" ? drainReason(this.deps.env.RTE_DRAIN_SECONDS) : "aborted on request";
          return;
        }
      }
      const requirementsPaths: RequirementsPaths | null = installed
        ? { collections: [installed.collections], roles: [installed.roles] }
        : null;
      // At a lower CPU priority than the RTE (RTE_PLAYBOOK_NICE): however busy its playbooks keep
      // the cores, the RTE still reads their output, beats and answers the app in time.
      const niceness = this.deps.env.RTE_PLAYBOOK_NICE;
      // nice outermost: everything after it, bwrap included, runs at the lower priority.
      const ansiblePlaybook = environmentProgram(environment, "ansible-playbook");
      // With a requirements.txt, the environment's ansible-playbook script is run by the venv's
      // python: ansible's own imports (filters: ipaddr's netaddr, json_query's jmespath) see the
      // venv, and so does every task on the implicit localhost, whose interpreter is
      // ansible_playbook_python (sys.executable). Only putting <venv>/bin first on PATH would not
      // do: the script's shebang names the environment's python, not the venv's.
      const playbookProgram = venv
        ? { file: path.join(venv.entry.venv, "bin", "python"), args: [venv.details.ansiblePlaybook, ...args] }
        : { file: ansiblePlaybook, args };
      // Its installed requirements read-only, whoever owns them (the RTE running as the playbook user).
      const wrapped = wrapPlaybook(
        playbookProgram,
        initScript,
        paths.hidden,
        sandboxed,
        privateTmp,
        [...(installed ? [installed.folder] : []), ...(venv ? [venv.entry.folder] : [])],
        this.job.options.network !== false,
      );
      const commandEnv = environmentEnv(
        playbookEnv(
          process.env,
          { ...ansibleEventEnv(EVENTS_FD), [RUN_ID_VARIABLE]: this.runId, ...identity },
          this.deps.env.RTE_PLAYBOOK_ENV_PASS,
        ),
        environment,
        requirementsPaths,
      );
      // The console scripts the requirements installed (and the venv's python, pip) come first by name.
      if (venv) commandEnv.PATH = [path.join(venv.entry.venv, "bin"), commandEnv.PATH].filter(Boolean).join(":");
      const command = playbookCommand(wrapped.file, wrapped.args, niceness);
      const child = execa(command.file, command.args, {
        cwd: paths.jobDir,
        env: commandEnv,
        extendEnv: false,
        // setgid, setuid (and no supplementary groups: libuv drops them) in the child before exec.
        ...(user && gid !== null ? { uid: user.uid, gid } : {}),
        detached: true,
        // fd 3 is the callback plugin's event side channel (PLAYFORM_EVENTS_FD); fd 4 where PID 1
        // of the playbook's namespace says how ansible-playbook ended; fd 5 the hidden extravars.
        stdio: [this.secrets.vaultPassword !== null ? "pipe" : "ignore", "pipe", "pipe", "pipe", sandboxed ? "pipe" : "ignore", "pipe"],
        buffer: false,
        reject: false,
        encoding: "utf8",
        // Our own grace period below replaces execa's; it must not SIGKILL early on its own.
        forceKillAfterDelay: false,
      });
      this.pid = child.pid;
      if (child.pid !== undefined) {
        const pid = child.pid;
        void setAutogroupNice(pid, niceness).then((problem) => {
          if (problem)
            this.deps.log(`job ${this.job.jobId}: could not lower the CPU priority of its session (/proc/${pid}/autogroup: ${problem})`, {
              jobId: this.job.jobId,
            });
        });
        // At once, while ansible-playbook is still starting: its group is what a later start
        // ends if this process dies without ending it.
        this.deps.running.record({
          ...record,
          pgid: child.pid,
          leaderStartTime: processInfo(child.pid)?.startTime ?? null,
          bootId: bootId(),
        });
      }
      // The leader's exit, not the end of its pipes: a child left in the background may hold
      // them open, and it is ended only once the leader is gone.
      const leaderExited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      // Under bwrap the leader is bwrap, which lives as long as anything in the namespace:
      // ansible-playbook's own exit comes from PID 1 of the namespace.
      let ansibleEnd: { exitCode: number | null; signal: number | null } | null = null;
      const ansibleExited = new Promise<void>((resolve) => {
        const statusPipe = sandboxed ? child.stdio[STATUS_FD] : undefined;
        if (!statusPipe || !("setEncoding" in statusPipe)) return;
        let said = "";
        statusPipe.setEncoding("utf8");
        statusPipe.on("data", (text: string) => {
          said += text;
          const match = /^(exit|signal) (\d+)\n/.exec(said);
          if (!match) return;
          ansibleEnd = match[1] === "exit" ? { exitCode: Number(match[2]), signal: null } : { exitCode: null, signal: Number(match[2]) };
          this.ansibleEnded = true;
          resolve();
        });
      });
      // (execa's types count the stdio entries wrongly past fd 4.)
      const secretsPipe = (child.stdio as unknown as (Writable | null)[])[SECRETS_FD];
      if (secretsPipe) {
        // Read by playbook-init.py before anything else; an early death closes it (EPIPE).
        secretsPipe.on("error", () => undefined);
        secretsPipe.end(hiddenJson);
      }
      // Read once by the vault password script at start-up; the pipe then stays at EOF, so a
      // playbook that prompts (vars_prompt, pause) gets no input, as without a vault password.
      if (this.secrets.vaultPassword !== null) child.stdin?.end(this.secrets.vaultPassword + "\n");
      if (this.cancelled) this.cancel();
      // sudo's refusal in the sandbox blames "a container": said once what it means here, after it.
      let becomeRefused = false;
      const watchBecome = (watch: (text: string) => boolean) => (text: string) => {
        if (sandboxed && watch(text) && !becomeRefused) {
          becomeRefused = true;
          batcher.log(BECOME_REFUSED_NOTE);
        }
      };
      const stdoutBecome = watchBecome(becomeRefusedWatch());
      const stderrBecome = watchBecome(becomeRefusedWatch());
      child.stdout?.setEncoding("utf8").on("data", (text: string) => {
        this.printed.stdout += Buffer.byteLength(text);
        batcher.write("stdout", text);
        stdoutBecome(text);
      });
      child.stderr?.setEncoding("utf8").on("data", (text: string) => {
        this.printed.stderr += Buffer.byteLength(text);
        batcher.write("stderr", text);
        stderrBecome(text);
      });
      const eventsPipe = child.stdio[EVENTS_FD];
      if (eventsPipe && "setEncoding" in eventsPipe) {
        eventsPipe.setEncoding("utf8");
        eventsPipe.on("data", (text: string) => {
          this.printed.events += Buffer.byteLength(text);
          batcher.writeEvents(text);
        });
      }
      this.stopWatching = this.watchDisk(paths.jobDir);
      // execa settles at once when the spawn itself fails (no exit event then).
      await Promise.race([leaderExited, ansibleExited, child.then(() => undefined)]);
      this.stopWatching();
      // Under bwrap the group ends once PID 1 has no child left (orphans of the namespace are
      // its children); without it, once the last process of the group has exited.
      if (!this.cancelled && this.pid !== undefined) await goneWithin(this.pid, SETTLE_MS);
      await this.endGroup();
      let result = await Promise.race([child, sleep(PIPES_CLOSE_MS).then(() => null)]);
      if (result === null) {
        batcher.log(`the playbook's output pipes were still open ${PIPES_CLOSE_MS / 1000}s after its process group ended: stopped reading`);
        for (const stream of child.stdio) stream?.destroy();
        result = await child;
      }
      const ended = ansibleEnd as { exitCode: number | null; signal: number | null } | null;
      exitCode = ended ? ended.exitCode : typeof result.exitCode === "number" ? result.exitCode : null;
      const spawnError = "code" in result && result.code === "ENOENT";
      // A missing ansible-playbook is exit status 127 of playbook-init.py (or of nice or env
      // before it); ansible-playbook's own statuses stop at 8, and 250 for an unexpected error.
      if (spawnError) {
        reason =
          command.file === "nice"
            ? `nice (coreutils) is not installed on this runner: install it, or set RTE_PLAYBOOK_NICE=0`
            : `${command.file} is not installed on this runner`;
        batcher.log(reason);
      } else if (exitCode === 127) {
        reason =
          environment.ansiblePlaybook !== undefined
            ? `${environment.ansiblePlaybook} (or python3, which starts it) is not installed on this runner (Debian: apt-get install ansible)`
            : `${environmentProgram(environment, "ansible-playbook")} (or python3, which starts it) is missing: environment ${environment.name} of RTE_ENVIRONMENTS is broken`;
        batcher.log(reason);
      } else if (this.cancelledBy === "disk") {
        reason = this.diskReason;
      } else if (this.cancelled) {
        status = "aborted";
        reason = this.cancelledBy === "drain" ? drainReason(this.deps.env.RTE_DRAIN_SECONDS) : "aborted on request";
      } else if (exitCode === 0) {
        status = "success";
      } else if (exitCode === null) {
        const signal = ended?.signal != null ? signalName(ended.signal) : result.signal;
        reason = signal ? `ansible-playbook was killed by ${signal}` : "ansible-playbook ended without an exit code";
      } else if (becomeRefused) {
        reason = BECOME_REFUSED_NOTE;
      }
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
      batcher.log(`job failed before the playbook ran: ${reason}`);
    } finally {
      // Also when something above threw after the spawn: no job ends with its group alive.
      this.stopWatching();
      await this.endGroup();
      // Nothing of the job runs any more: its cache entries may be evicted from now on.
      for (const key of this.heldEntries.splice(0)) this.deps.requirements.cache.release(key);
      batcher.stop();
      await this.cleanup(paths);
      this.deps.running.forget(this.job.jobId);
      // Error messages can quote anything, a secret included.
      this.deps.emit([
        {
          kind: "end",
          ts: Date.now() / 1000,
          status,
          exitCode,
          reason: reason === null ? null : mask(reason),
          ...(batcher.truncated ? { outputTruncated: true } : {}),
          ...(status === "aborted" && this.cancelledBy === "drain" ? { cancelledBy: "drain" as const } : {}),
        },
      ]);
      unmask();
    }
  }

  /** The job's requirements files (requirements.ts) and their key, or null when it has none. */
  private findRequirements(jobDir: string): JobRequirements | null {
    const files = findRequirementsFiles(this.job.playbook, (file) => this.job.manifest.some((entry) => entry.path === file));
    if (files.length === 0) return null;
    const { environment } = this.deps;
    return readJobRequirements(
      jobDir,
      files,
      {
        environment: environment.name,
        ansible: this.deps.requirements.ansibleCore ?? environmentProgram(environment, "ansible-galaxy"),
        galaxyServer: this.deps.env.RTE_GALAXY_SERVER ?? null,
      },
      (written) => manifestDigest(this.job.manifest, written),
    );
  }

  /** The job's requirements.txt and its key, or null when it has none. */
  private findPipRequirements(jobDir: string): { file: string; key: string } | null {
    const { manifest } = this.job;
    const file = findPipRequirementsFile(this.job.playbook, (candidate) => manifest.some((entry) => entry.path === candidate));
    if (file === null) return null;
    const { environment } = this.deps;
    return readPipRequirements(
      jobDir,
      file,
      {
        environment: environment.name,
        ansible: this.deps.requirements.ansibleCore ?? environmentProgram(environment, "ansible-playbook"),
        python: this.deps.requirements.python ?? null,
        ...this.pipSettings(),
      },
      (relative) => manifestDigest(manifest, relative),
    );
  }

  private pipSettings(): PipSettings {
    return { indexUrl: this.deps.env.RTE_PIP_INDEX_URL ?? null, findLinks: this.deps.env.RTE_PIP_FIND_LINKS ?? null };
  }

  /**
   * The command environment of an install: the playbook's, without colours, with the runner's
   * ansible and pip configuration pinned (install-config.ts: never the form's ansible.cfg).
   */
  private installEnv(
    jobDir: string,
    run: { user: { uid: number; gid: number } | null; privateTmp: PrivateTmp | null; identity: Record<string, string> },
    requirements: RequirementsPaths | null,
  ): Record<string, string> {
    const { env, environment } = this.deps;
    const pinned = installConfigEnv(jobDir, process.env, run.user, run.privateTmp);
    if (pinned.note !== null) this.batcher?.log(pinned.note);
    const identity = run.identity;
    const commandEnv = environmentEnv(
      playbookEnv(
        process.env,
        { [RUN_ID_VARIABLE]: this.runId, ANSIBLE_NOCOLOR: "1", ANSIBLE_FORCE_COLOR: "0", ...identity },
        env.RTE_PLAYBOOK_ENV_PASS,
      ),
      environment,
      requirements,
    );
    return { ...commandEnv, ...pinned.env };
  }

  /**
   * The cache entry of `key`: found, or installed by this job with `install` (which it then may
   * stop on a cancel), or by another job or runner process it waits for. Says which in the job's
   * output; `produced`, the job's folder the install wrote into, is removed either way. Throws
   * RequirementsInstallError (the installer's message), InstallFailedElsewhere (another runner
   * process's, whose install it waited for) or InstallCancelled.
   */
  private async obtainEntry(
    key: string,
    /** How long reading the files and computing the key took: part of what requirements cost a launch. */
    keyMs: number,
    produced: string,
    install: () => Promise<string | { folder: string; details: Record<string, unknown> }>,
  ): Promise<CacheEntry> {
    const batcher = this.batcher!;
    const short = key.slice(0, SHORT_KEY_LENGTH);
    const started = performance.now();
    const elapsed = () => keyMs + performance.now() - started;
    const entry = await this.deps.requirements.cache.obtain(key, {
      say: (line) => batcher.log(line),
      cancelled: () => this.cancelled,
      install,
      maxBytes: this.deps.env.RTE_REQUIREMENTS_INSTALL_MAX_BYTES,
    });
    this.heldEntries.push(key);
    // Copied into the cache, or never used (the entry was there): not left in the playbook's
    // folder. Through descriptors (removeTree): without the sandbox a process of the install may
    // still rename in it.
    await removeTree(produced);
    const ms = elapsed();
    if (entry.installed) batcher.log(`requirements: installed in ${(ms / 1000).toFixed(1)} s (key ${short})`);
    else batcher.log(`requirements: cached since ${entry.since.toISOString()} (key ${short}, ready in ${ms.toFixed(1)} ms)`);
    return entry;
  }

  /**
   * Runs one install of this job: a cancel stops it. Without the sandbox, what the install left
   * running (a setsid child) is ended before its folder goes to the cache (install-leftovers.ts).
   * What it adds to the job's folder (its target, its /tmp, its downloads: the cache keeps it
   * after the job, and the job's disk limit never counts it) is measured every
   * RTE_JOB_DISK_CHECK_SECONDS and once more at its end, before the cache takes it: past
   * RTE_REQUIREMENTS_INSTALL_MAX_BYTES the install is stopped and fails, its folder left to the
   * job's cleanup, which follows at once.
   */
  private async running<T>(install: SandboxedInstall, jobDir: string, user: { uid: number } | null, work: () => Promise<T>): Promise<T> {
    this.install = install;
    if (this.cancelled) install.stop();
    const limit = this.deps.env.RTE_REQUIREMENTS_INSTALL_MAX_BYTES;
    const watch =
      limit === null
        ? null
        : {
            subject: "the install",
            setting: "RTE_REQUIREMENTS_INSTALL_MAX_BYTES",
            folder: jobDir,
            baseline: await diskTaken(jobDir),
            limit,
            intervalSeconds: this.deps.env.RTE_JOB_DISK_CHECK_SECONDS,
            processRoot: () => install.processGroup,
          };
    const stopWatching = watch
      ? watchDisk({
          ...watch,
          exceeded: (reason) => {
            this.batcher?.log(`requirements: ${reason}: the install is stopped (SIGTERM to its process group)`);
            install.overLimit(reason);
          },
          failed: (error) => this.deps.log(`job ${this.job.jobId}: install disk check failed: ${String(error)}`, { jobId: this.job.jobId }),
        })
      : () => undefined;
    try {
      const result = await work();
      stopWatching();
      if (!this.deps.sandboxed) {
        const ended = await endInstallLeftovers(jobDir, this.runId, user?.uid ?? process.getuid?.() ?? 0);
        if (ended > 0) this.batcher?.log(`requirements: ended ${ended} process(es) the install left running`);
      }
      // What it wrote since the last check, or all of it when it ended before the first.
      const over = watch ? await checkDisk(watch) : null;
      if (over !== null) throw new RequirementsInstallError(over);
      return result;
    } finally {
      stopWatching();
      this.install = null;
    }
  }

  /** The cache entry of the job's requirements.yml files (see obtainEntry, requirements-install.ts). */
  private async obtainRequirements(
    requirements: JobRequirements,
    keyMs: number,
    paths: ReturnType<JobRun["paths"]>,
    run: { user: { uid: number; gid: number } | null; privateTmp: PrivateTmp | null; identity: Record<string, string> },
  ): Promise<CacheEntry> {
    const batcher = this.batcher!;
    const { environment, env } = this.deps;
    const program = environmentProgram(environment, "ansible-galaxy");
    return this.obtainEntry(requirements.key, keyMs, paths.requirements, async () => {
      const short = requirements.key.slice(0, SHORT_KEY_LENGTH);
      batcher.log(`requirements: installing ${requirements.files.map((f) => f.path).join(", ")} with ${program} (key ${short})`);
      const install = new GalaxyInstall({
        program,
        jobDir: paths.jobDir,
        target: paths.requirements,
        files: requirements.files,
        galaxyServer: env.RTE_GALAXY_SERVER ?? null,
        // Searched as the playbook will search the entry: first (and galaxy does not warn that
        // its -p folder is not on the collections path).
        env: this.installEnv(paths.jobDir, run, {
          collections: [path.join(paths.requirements, "collections")],
          roles: [path.join(paths.requirements, "roles")],
        }),
        user: run.user,
        sandboxed: this.deps.sandboxed,
        privateTmp: run.privateTmp,
        timeoutMs: env.RTE_REQUIREMENTS_TIMEOUT_SECONDS * 1000,
        say: (line) => batcher.log(line),
      });
      await this.running(install, paths.jobDir, run.user, () => install.install());
      return paths.requirements;
    });
  }

  /**
   * The virtual environment of the job's requirements.txt (see obtainEntry, PipInstall): with the
   * environment's ansible-playbook script it runs, recorded with the entry at install.
   */
  private async obtainPipRequirements(
    pip: { file: string; key: string },
    keyMs: number,
    paths: ReturnType<JobRun["paths"]>,
    run: { user: { uid: number; gid: number } | null; privateTmp: PrivateTmp | null; identity: Record<string, string> },
  ): Promise<{ entry: CacheEntry; details: VenvDetails }> {
    const batcher = this.batcher!;
    const { environment, env } = this.deps;
    const entry = await this.obtainEntry(pip.key, keyMs, paths.pipRequirements, async () => {
      batcher.log(`requirements: pip installing ${pip.file} into a virtual environment (key ${pip.key.slice(0, SHORT_KEY_LENGTH)})`);
      const install = new PipInstall({
        ansiblePlaybook: environmentProgram(environment, "ansible-playbook"),
        file: pip.file,
        target: paths.pipRequirements,
        settings: this.pipSettings(),
        jobDir: paths.jobDir,
        env: this.installEnv(paths.jobDir, run, null),
        user: run.user,
        sandboxed: this.deps.sandboxed,
        privateTmp: run.privateTmp,
        timeoutMs: env.RTE_REQUIREMENTS_TIMEOUT_SECONDS * 1000,
        say: (line) => batcher.log(line),
      });
      const details = await this.running(install, paths.jobDir, run.user, () => install.install());
      return { folder: paths.pipRequirements, details: { ...details } };
    });
    const { python, ansiblePlaybook } = entry.details;
    if (typeof python !== "string" || typeof ansiblePlaybook !== "string") {
      throw new RequirementsInstallError(`the cache entry ${entry.folder} records no ansible-playbook to run: remove it to install again`);
    }
    return { entry, details: { python, ansiblePlaybook } };
  }

  /**
   * Measures the job's disk use every RTE_JOB_DISK_CHECK_SECONDS while the playbook runs, and
   * fails the job once it passes RTE_JOB_DISK_LIMIT (see disk-usage.ts). Returns the stop.
   */
  private watchDisk(jobDir: string): () => void {
    const cap = this.deps.env.PROCESS_MAX_BUFFER;
    return watchDisk({
      subject: "the job",
      folder: jobDir,
      limit: this.deps.env.RTE_JOB_DISK_LIMIT,
      intervalSeconds: this.deps.env.RTE_JOB_DISK_CHECK_SECONDS,
      processRoot: () => this.pid,
      outputBytes: () => Math.min(this.printed.stdout, cap) + Math.min(this.printed.stderr, cap) + this.printed.events,
      exceeded: (reason) => {
        if (this.cancelled) return;
        this.diskReason = reason;
        this.cancelledBy = "disk";
        this.batcher?.log(`${reason}: the playbook is stopped (SIGTERM to its process group)`);
        this.deps.log(`job ${this.job.jobId}: ${reason}, stopping it`, { jobId: this.job.jobId });
        this.cancel("disk");
      },
      failed: (error) => this.deps.log(`job ${this.job.jobId}: disk check failed: ${String(error)}`, { jobId: this.job.jobId }),
    });
  }

  private async cleanup(paths: ReturnType<JobRun["paths"]>): Promise<void> {
    const failed = (target: string, error: unknown) =>
      this.deps.log(`job ${this.job.jobId}: could not remove ${target}: ${String(error)}`, { jobId: this.job.jobId });
    // Removed on their own before the folder: if removing the folder fails halfway, the key and
    // the secrets are not among what is left behind.
    for (const file of [paths.sshKey, paths.hidden]) {
      try {
        fs.rmSync(file, { force: true });
      } catch (error) {
        failed(file, error);
      }
    }
    await removeTree(paths.jobDir).catch((error: unknown) => failed(paths.jobDir, error));
  }
}

function signalName(signal: number): string {
  const name = Object.entries(os.constants.signals).find(([, n]) => n === signal)?.[0];
  return name ?? `signal ${signal}`;
}

/** The reason of a job the RTE cancelled because its drain ran out (RTE_DRAIN_SECONDS). */
export function drainReason(drainSeconds: number): string {
  return `the runner stopped: drain time of ${drainSeconds} s ran out`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
