/**
 * A playbook must not outlive its RTE, nor see or change more of the runner than its own job
 * (issue 21, §3). The RTE ends a playbook's process group with every job, but an RTE killed with
 * SIGKILL ends nothing: its playbook would run on unsupervised until the RTE's next start
 * (server/rte/leftovers.ts). So, where bubblewrap works (RTE_SANDBOX=bwrap, the default), every
 * playbook runs in a pid, IPC and mount namespace of its own:
 *
 *   env --ignore-signal=TERM bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --unshare-ipc --die-with-parent --as-pid-1
 *     [--unshare-net] [--tmpfs <each runner folder>] --bind <job>/.playform_tmp /tmp … --bind <job> <job> [--ro-bind <entry> <entry>]
 *     --remount-ro /dev
 *     -- python3 playbook-init.py --init 4 --secrets-fd 5 --secrets-fifo F -- ansible-playbook ...
 *
 * bwrap dies with its parent, the RTE (--die-with-parent: PR_SET_PDEATHSIG), playbook-init.py
 * (PID 1 of the namespace) with bwrap, and when PID 1 of a pid namespace dies the kernel kills
 * every process in it, including those that left the process group (setsid). The user is the
 * same (the RTE's, or RTE_PLAYBOOK_USER, set before bwrap starts: then bwrap makes a user
 * namespace for the others), and everything is still one process group, led by bwrap, that the
 * RTE ends with SIGTERM then SIGKILL. bwrap and PID 1 ignore that SIGTERM (`env
 * --ignore-signal`; PID 1 restores it for ansible-playbook), so the playbook gets its grace
 * period, and only the SIGKILL after it takes down the namespace at once. PID 1 waits for
 * everything in the namespace, so ansible-playbook's own exit is reported on fd 4 (`exit N`,
 * `signal N`).
 *
 * What the playbook sees (the mounts, in bwrap's order, a later one over an earlier):
 * - the runner's file system read-only (`--ro-bind / /`): a playbook writes neither the system
 *   nor a folder of the runner that its user could otherwise write (a 0777 folder, its own
 *   files elsewhere). `--dev /dev`: null, zero, random, a pts of its own, no disk of the runner;
 *   remounted read-only after the binds (`--remount-ro /dev`, last): its tmpfs would otherwise
 *   be memory the playbook writes that no disk check counts.
 *   `--proc /proc`: the pid namespace's, so it sees its own processes only, not the RTE's (its
 *   environment), another job's or the app's, nor their command lines. Where the kernel refuses
 *   to mount a new /proc (a container without --privileged, or one that masks parts of its
 *   own /proc: "Can't mount proc on /newroot/proc"), the runner's /proc, read-only, instead
 *   (`--ro-bind /proc /proc`, the runner-proc mode, said loudly at start; RTE_SANDBOX_PROC=runner
 *   asks for it): everything else holds (the pid namespace too: a playbook signals nothing of
 *   the runner, its pid numbers are its namespace's), but the playbook sees the runner's
 *   processes and their command lines, a concurrent job's arguments included. Their
 *   environment, open files and /proc/PID/root (the runner's file system as the RTE sees it,
 *   hidden folders and all) stay closed to it: the kernel opens them to the same user in the
 *   same user namespace only, and bwrap makes each playbook's a user namespace of its own. The
 *   start probe checks that: where the playbook could reach the RTE's /proc/PID/root (a
 *   set-uid bwrap, playbooks run as root: RTE_PLAYBOOK_USER empty), the runner's /proc would
 *   undo the hidden folders and the read-only system, and there is no sandbox at all, said
 *   loudly.
 * - none of the runner's own folders (runnerFolders: the RTE's spool, work dir and state, the
 *   jobs folder with the other jobs' folders, the requirements cache, ./data): an empty tmpfs
 *   over each that the playbook's user could reach at all (reachableBy: bwrap mounts as that
 *   user, and a folder it may not search for is closed to it anyway).
 * - writable: its job folder (bound again at its path, over the hidden jobs folder) and its
 *   /tmp, /var/tmp, /dev/shm and /run/lock (the folders every user may write to), which are one
 *   folder of its job (`.playform_tmp`): what it leaves there goes with the job, counts towards
 *   the job's disk limit (RTE_JOB_DISK_LIMIT), and no other job sees it. /dev/shm is not a tmpfs
 *   of its own: memory no disk check counts, half the RAM per job. RTE_PLAYBOOK_PRIVATE_TMP=off
 *   binds the runner's own temp folders, writable, instead (playbooks that hand files to other
 *   programs of the runner through them); a runner folder in them is still hidden.
 * - read-only again: Playform's own folders (playbook-init.py, the callback plugin), the
 *   environment's and the job's requirements cache entry, where one of the above hides them.
 * - the network, as the runner's (ssh to the managed hosts), unless the form says
 *   `sandbox: {network: false}`: then a network namespace of its own with a loopback only
 *   (`--unshare-net`). An RTE without bwrap fails such a job rather than run it with the network.
 *
 * A playbook user's HOME is its job folder. A playbook run as the RTE's own user keeps that
 * user's HOME, read-only: what ansible writes under ~/.ansible (local temp files, ssh's
 * ControlPath sockets) goes to the job folder instead (ansibleStateInJob), and the job's
 * `.ansible/tmp` is bound over ~/.ansible/tmp, where tasks on the runner itself put their
 * modules (ownUserAnsibleTmp).
 *
 * What a playbook can no longer do on the runner itself: write outside its folder and its /tmp,
 * leave a daemon running after the job (it is killed with the namespace), or mount a file
 * system for the rest of the machine (its mounts are in its own mount namespace). `become`
 * (sudo) on the runner itself fails unless the playbook already runs as root: bwrap always sets
 * no_new_privs, so no set-uid program gains anything (sudo says so and stops), and in the user
 * namespace of a playbook user root is not even mapped. sudo's own words blame "a container":
 * the job's output adds what it means here (becomeRefusedWatch). `become` on managed hosts (over
 * ssh) is not concerned. RTE_SANDBOX=none (RTE_PLAYBOOK_SANDBOX=off, its deprecated spelling)
 * runs playbooks without any of it.
 *
 * Without bwrap (not installed, or user namespaces disabled for a non-root RTE), the RTE says
 * at start what that means: it cannot make the kernel end a playbook when the RTE is killed
 * (Node has no PR_SET_PDEATHSIG for its children, and a death signal would reach
 * ansible-playbook only, not the workers and ssh it started): such a playbook runs on until
 * the RTE's next start ends its process group; and the playbook sees the runner as its user may.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { callbackPluginDir, playbookInitScript } from "./ansible/plugin-path";
import type { PlaybookUser } from "./playbook-user";

/** What sudo says when no_new_privs stops it (quotes escaped in a task result's JSON). */
const SUDO_REFUSED = /The \\?"no new privileges\\?" flag is set/;
/** Enough of a chunk's end to find SUDO_REFUSED split across two chunks. */
const SUDO_REFUSED_CARRY = 64;

/** The runner line, and the failed job's reason, once sudo was refused in the sandbox (see the header). */
export const BECOME_REFUSED_NOTE =
  "sandbox: become (sudo) on the runner itself cannot work in this job's sandbox: bubblewrap sets no_new_privs, " +
  "under which no set-uid program gains privileges, so sudo refuses to start (its message speaks of a container); " +
  "become on managed hosts (over ssh) is not concerned. A task that needs root on the runner needs a runner " +
  "without the sandbox (RTE_SANDBOX=none) where sudo lets the playbook user do it (docs/security.md)";

/**
 * Watches one output stream of a sandboxed playbook for sudo's refusal (SUDO_REFUSED), also
 * split across chunks: true for the chunk that completes the first one, false before and after.
 */
export function becomeRefusedWatch(): (text: string) => boolean {
  let carry = "";
  let found = false;
  return (text) => {
    if (found) return false;
    const window = carry + text;
    carry = window.slice(-SUDO_REFUSED_CARRY);
    found = SUDO_REFUSED.test(window);
    return found;
  };
}

/**
 * bwrap's options before `--` (see the header), then sandboxMounts'. The runner's file system
 * read-only (`--ro-bind / /`); a /dev of its own (`--dev`: null, zero, random, tty, a pts of its
 * own; no disk or other device of the runner); a /proc of the pid namespace (`--proc`: the
 * playbook sees its own processes only, not the RTE's nor another job's, nor their command
 * lines). An IPC namespace of its own: System V shared memory, semaphores and message queues
 * outlive their processes, so a playbook's `ipcmk -M 100M` was RAM held on the runner after the
 * job, counted by nothing and removed by no one; the namespace's objects go with it. (POSIX
 * shared memory and semaphores are files in /dev/shm, the job's private folder.)
 */
export const BWRAP_ARGS = [
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--unshare-pid",
  "--unshare-ipc",
  "--die-with-parent",
  "--as-pid-1",
];

/**
 * Whether, and how, playbooks run under bwrap: false, no sandbox; true, the whole of it
 * (BWRAP_ARGS); "runner-proc", all but a /proc of its own: the runner's, read-only (see the
 * header), where the kernel refuses a new one.
 */
export type Sandboxed = boolean | "runner-proc";

/** BWRAP_ARGS for `sandboxed`, with the runner's /proc in the runner-proc mode. */
export function bwrapArgs(sandboxed: Sandboxed): string[] {
  if (sandboxed !== "runner-proc") return BWRAP_ARGS;
  const proc = BWRAP_ARGS.indexOf("--proc");
  return [...BWRAP_ARGS.slice(0, proc), "--ro-bind", "/proc", "/proc", ...BWRAP_ARGS.slice(proc + 2)];
}

/** playbook-init.py writes ansible-playbook's end here (under bwrap). */
export const STATUS_FD = 4;
/** The job's hidden extravars: written by the RTE to this fd, handed to ansible through a FIFO by playbook-init.py. */
export const SECRETS_FD = 5;

/**
 * The folders every user may write to, which a playbook sees as `tmpDir` under bwrap (those of
 * them this machine has: a mount point must exist). /var/lock is a link to /run/lock.
 */
export const PRIVATE_TMP_MOUNTS = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock"];

function isFolder(target: string): boolean {
  try {
    return fs.lstatSync(target).isDirectory();
  } catch {
    return false;
  }
}

/**
 * How a job's (or an inventory listing's, or an install's) folders are mounted under bwrap.
 * Everything of the runner is read-only; writable are only `jobDir` and the temp folders.
 */
export interface PrivateTmp {
  /** The job's folder that stands in for /tmp and /var/tmp. */
  tmpDir: string;
  /** The job's own folder: bound writable at its own path, whatever is hidden around it. */
  jobDir: string;
  /**
   * Playform's own folders the playbook runs with (playbook-init.py, the callback plugin, the
   * vault password script, the environment's folders) that a private /tmp or `hidden` would
   * hide (Playform installed or cloned in /tmp): bound again, read-only, or the playbook could
   * not start.
   */
  readOnly?: string[];
  /**
   * RTE_PLAYBOOK_PRIVATE_TMP=off: the runner's own /tmp, /var/tmp, /dev/shm and /run/lock,
   * bound writable, instead of `tmpDir`.
   */
  runnerTmp?: boolean;
  /**
   * The runner's folders no playbook may see (runnerFolders: the RTE's spool, work dir, state,
   * jobs folder with the other jobs' folders, the requirements cache, the app's data): an empty
   * tmpfs over each, before `jobDir` and `readOnly` are bound again.
   */
  hidden?: string[];
  /** Folders of the job bound writable elsewhere, after `jobDir` (ownUserAnsibleTmp). */
  binds?: { from: string; to: string }[];
}

/**
 * The folders a playbook must not see (PrivateTmp.hidden): the RTE's own (its token in the
 * state folder, the spool with every job's output, the work dir with the file cache and kept
 * extravars), the jobs folder (other jobs' folders, their ssh keys), the requirements cache
 * (an entry is bound back read-only for the job that uses it) and the app's data folder when the
 * RTE runs in the app's folder (the local RTE: data/ holds the database and encryption.key).
 */
export function runnerFolders(env: {
  spoolDir: string;
  workDir: string;
  stateDir: string;
  jobsDir: string;
  requirementsDir: string;
}): string[] {
  return [env.spoolDir, env.workDir, env.stateDir, env.jobsDir, env.requirementsDir, path.resolve("data")];
}

/**
 * The folders of `folders` that a mount over one of `over` would hide (by default the private
 * /tmp's), without those inside another of them.
 */
export function hiddenFolders(folders: readonly string[], over: readonly string[] = PRIVATE_TMP_MOUNTS): string[] {
  // A temp folder itself is replaced by the private one (nothing of Playform's is bound there);
  // a hidden folder is replaced by a tmpfs, itself included.
  const hides = (folder: string, mount: string) =>
    folder.startsWith(`${mount}/`) || (folder === mount && !PRIVATE_TMP_MOUNTS.includes(mount));
  const hidden = [...new Set(folders.map((f) => path.resolve(f)))].filter((f) => over.some((mount) => hides(f, path.resolve(mount))));
  return hidden.filter((f) => !hidden.some((other) => other !== f && f.startsWith(`${other}/`)));
}

/** The private /tmp mount point of the job folder, when it lies under one of PRIVATE_TMP_MOUNTS (it must exist in tmpDir). */
export function hiddenJobDir(jobDir: string): string | null {
  const resolved = path.resolve(jobDir);
  for (const mount of PRIVATE_TMP_MOUNTS) {
    if (resolved.startsWith(`${mount}/`)) return path.relative(mount, resolved);
  }
  return null;
}

/** The folders of Playform's own that a sandboxed command reads (playbook-init.py, the callback plugin). */
export function sandboxSupportFolders(): string[] {
  return [path.dirname(playbookInitScript()), callbackPluginDir()];
}

/**
 * Whether `folder` is a folder that `who` (null: this process's user) may reach: search
 * permission on every folder above it, by the mode bits (the playbook's user has no other
 * group: libuv drops the supplementary ones). ACLs are not read: a folder they open is
 * treated as closed, and so left as it is (not hidden).
 */
export function reachableBy(folder: string, who: { uid: number; gid: number } | null): boolean {
  if (!isFolder(folder)) return false;
  if (who === null || who.uid === 0) return true;
  for (let dir = path.dirname(path.resolve(folder)); ; dir = path.dirname(dir)) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(dir);
    } catch {
      return false;
    }
    const bits = stat.uid === who.uid ? stat.mode >> 6 : stat.gid === who.gid ? stat.mode >> 3 : stat.mode;
    if ((bits & 0o1) === 0) return false;
    if (dir === "/") return true;
  }
}

/**
 * A playbook run as the RTE's own user keeps that user's HOME (its ~/.ssh/config, known_hosts,
 * ~/.ansible.cfg, collections), which the sandbox makes read-only: what ansible writes under
 * ~/.ansible goes to the job's folder instead (its local temp files, ssh's ControlPath sockets,
 * the persistent connections' sockets, galaxy's cache), unless the runner's environment names a
 * place of its own. (A playbook user's HOME is the job's folder: nothing to move.)
 */
export function ansibleStateInJob(jobDir: string, env: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
  const state = path.join(jobDir, ".ansible");
  const moved: Record<string, string> = {
    ANSIBLE_LOCAL_TEMP: path.join(state, "tmp"),
    ANSIBLE_SSH_CONTROL_PATH_DIR: path.join(state, "cp"),
    ANSIBLE_PERSISTENT_CONTROL_PATH_DIR: path.join(state, "pc"),
    ANSIBLE_GALAXY_CACHE_DIR: path.join(state, "galaxy_cache"),
  };
  return Object.fromEntries(Object.entries(moved).filter(([name]) => env[name] === undefined));
}

/**
 * Run as the RTE's own user, ansible's temp folder for tasks on the runner itself (the local
 * connection's remote_tmp, `~/.ansible/tmp`, which ansible expands with that user's home from
 * the password database, not HOME) would be in the read-only home: the job's `.ansible/tmp` is
 * bound there instead (made here when missing, as ansible would have made it). [] when there is
 * no home to bind in, or the private /tmp would hide it.
 */
export function ownUserAnsibleTmp(tmp: PrivateTmp, home: string = os.userInfo().homedir): { from: string; to: string }[] {
  const to = path.join(home, ".ansible", "tmp");
  const from = path.join(tmp.jobDir, ".ansible", "tmp");
  if (!tmp.runnerTmp && hiddenJobDir(to) !== null) return [];
  try {
    fs.mkdirSync(to, { recursive: true, mode: 0o700 });
    fs.mkdirSync(from, { recursive: true, mode: 0o700 });
  } catch {
    return [];
  }
  return [{ from, to }];
}

/**
 * Makes a job's (or an inventory listing's) temp folder, `.playform_tmp` in its folder, before
 * the folder is handed over, and says how its command runs with it: bwrap's mounts (null
 * without the sandbox) and the TMPDIR it gets: /tmp under the private /tmp, else the folder
 * itself, so programs that honour TMPDIR (Python's tempfile, mktemp, sort) still write where it
 * is counted and removed with the job. `hidden`: runnerFolders, hidden under bwrap.
 */
export function preparePrivateTmp(
  folder: string,
  sandboxed: Sandboxed,
  setting: "on" | "off",
  support: readonly string[] = sandboxSupportFolders(),
  hidden: readonly string[] = [],
  who: { uid: number; gid: number } | null = null,
): { privateTmp: PrivateTmp | null; tmpdir: string } {
  const tmpDir = path.join(folder, ".playform_tmp");
  // Not recursive: a form file of that name fails the job here instead of being used as /tmp.
  fs.mkdirSync(tmpDir, { mode: 0o700 });
  if (!sandboxed) return { privateTmp: null, tmpdir: tmpDir };
  const runnerTmp = setting === "off";
  // Hidden are the folders the command could reach: bwrap mounts as the playbook's user, and
  // can neither make a mount point in the read-only system (a folder not made yet: the
  // requirements cache before its first install) nor find one it may not search for (the
  // runner's folders in a 0700 folder: the image's /var/lib/playform), and both are closed to
  // the playbook anyway. Those under a temp folder are hidden by the private /tmp.
  const reachable = [...new Set(hidden.map((f) => path.resolve(f)))].filter(
    (f) => (runnerTmp || hiddenJobDir(f) === null) && reachableBy(f, who),
  );
  // One tmpfs for a folder and what is in it (the work dir's file cache, the jobs folder's
  // default requirements cache).
  const hide = reachable.filter((f) => !reachable.some((other) => other !== f && f.startsWith(`${other}/`)));
  // Only folders there are: bwrap cannot bind a missing one (an environment's collection folder
  // not made yet), and the command would not start.
  const readOnly = hiddenFolders(support, [...(runnerTmp ? [] : PRIVATE_TMP_MOUNTS), ...hide]).filter((f) => isFolder(f));
  if (!runnerTmp) {
    // The folder's mount point under the private /tmp is made here, as the RTE, not by bwrap as
    // the playbook user.
    for (const target of [folder, ...readOnly]) {
      const mountPoint = hiddenJobDir(target);
      if (mountPoint !== null) fs.mkdirSync(path.join(tmpDir, mountPoint), { recursive: true, mode: 0o700 });
    }
  }
  return {
    privateTmp: { tmpDir, jobDir: folder, readOnly, ...(runnerTmp ? { runnerTmp } : {}), ...(hide.length > 0 ? { hidden: hide } : {}) },
    tmpdir: runnerTmp ? tmpDir : "/tmp",
  };
}

/**
 * Makes the mount points, in a job's private /tmp, of folders that wrapPlaybook mounts read-only
 * and that the private /tmp would hide (a cache entry in the jobs folder under /tmp).
 */
export function privateTmpMountPoints(tmp: PrivateTmp | null, folders: readonly string[]): void {
  if (tmp === null || tmp.runnerTmp) return;
  for (const folder of folders) {
    const mountPoint = hiddenJobDir(folder);
    if (mountPoint !== null) fs.mkdirSync(path.join(tmp.tmpDir, mountPoint), { recursive: true, mode: 0o700 });
  }
}

/**
 * bwrap's mounts for a job, after BWRAP_ARGS (bwrap applies them in order, a later one over an
 * earlier): the runner's temp folders writable (RTE_PLAYBOOK_PRIVATE_TMP=off), then a tmpfs over
 * each hidden folder (so one under the runner's /tmp is hidden too), then the private /tmp, then
 * the job's folder writable, then Playform's own folders read-only.
 */
export function privateTmpArgs(tmp: PrivateTmp, exists: (folder: string) => boolean = isFolder): string[] {
  const args: string[] = [];
  const temps = PRIVATE_TMP_MOUNTS.filter((mount) => exists(mount));
  if (tmp.runnerTmp) for (const mount of temps) args.push("--bind", mount, mount);
  for (const folder of tmp.hidden ?? []) args.push("--tmpfs", folder);
  if (!tmp.runnerTmp) for (const mount of temps) args.push("--bind", tmp.tmpDir, mount);
  args.push("--bind", path.resolve(tmp.jobDir), path.resolve(tmp.jobDir));
  for (const { from, to } of tmp.binds ?? []) args.push("--bind", from, to);
  for (const folder of tmp.readOnly ?? []) args.push("--ro-bind", folder, folder);
  return args;
}

/**
 * The command that starts ansible-playbook (`playbook`), through playbook-init.py and, when
 * `sandboxed`, bwrap. `secretsFifo`: where playbook-init.py makes the FIFO the playbook's
 * `-e @` names (the job's hidden extravars, written to SECRETS_FD); null for a command that
 * reads no secrets (ansible-inventory for an inventory listing, which runs in the same sandbox).
 * `privateTmp`: under bwrap, the job's mounts (its writable folder, its /tmp, what is hidden).
 * `readOnly`: folders mounted read-only at their own path under bwrap (a job's installed
 * requirements: not writable whoever owns them); those under the private /tmp need a mount
 * point there (privateTmpMountPoints). `network: false`: a network namespace of its own, with
 * loopback only (a form's `sandbox: {network: false}`).
 */
export function wrapPlaybook(
  playbook: { file: string; args: string[] },
  initScript: string,
  secretsFifo: string | null,
  sandboxed: Sandboxed,
  privateTmp: PrivateTmp | null = null,
  readOnly: readonly string[] = [],
  network = true,
): { file: string; args: string[] } {
  const init = [
    "python3",
    initScript,
    ...(sandboxed ? ["--init", String(STATUS_FD)] : []),
    ...(secretsFifo !== null ? ["--secrets-fd", String(SECRETS_FD), "--secrets-fifo", secretsFifo] : []),
    "--",
  ];
  const inner = [...init, playbook.file, ...playbook.args];
  if (!sandboxed) return { file: inner[0]!, args: inner.slice(1) };
  const mounts = [
    ...(network ? [] : ["--unshare-net"]),
    ...(privateTmp ? privateTmpArgs(privateTmp) : []),
    ...readOnly.flatMap((folder) => ["--ro-bind", folder, folder]),
    // Last, once /dev/shm is bound (to the job's temp folder, a mount of its own that stays
    // writable): `--dev` makes /dev a tmpfs the playbook's user owns, no size but half the RAM,
    // that no disk check counts (attack 6 on issue 34: 20 MiB held there past an 8 MiB
    // RTE_JOB_DISK_LIMIT, the job `success`). Read-only, nothing can be made in it; its device
    // nodes (null, zero, tty, urandom) and /dev/pts are mounts of their own and still work.
    "--remount-ro",
    "/dev",
  ];
  return { file: "env", args: ["--ignore-signal=TERM", "bwrap", ...bwrapArgs(sandboxed), ...mounts, "--", ...inner] };
}

/** How one start probe ended: bwrap's exit code (127: not found) and what it said. */
export interface SandboxProbe {
  exitCode: number;
  said: string;
}

/** bwrap's words when the kernel refuses it a new /proc for the pid namespace. */
const PROC_REFUSED = /Can't mount proc on \/newroot\/proc/;
/** The runner-proc probe's exit code when the playbook could reach the RTE's /proc/PID/root. */
const RUNNER_ROOT_REACHED = 42;

/**
 * The sandbox playbooks get from the start probes (detectSandbox): the whole of it when `full`
 * worked; the runner-proc mode when the kernel refused only the new /proc (or RTE_SANDBOX_PROC=runner
 * skipped `full`: null) and `runnerProc` worked; else none, and why. A probe not run is null.
 */
export function chooseSandbox(full: SandboxProbe | null, runnerProc: SandboxProbe | null): { sandboxed: Sandboxed; why: string | null } {
  if (full?.exitCode === 0) return { sandboxed: true, why: null };
  const said = (probe: SandboxProbe) =>
    probe.exitCode === 127 ? "bwrap is not installed" : probe.said.trim() || `bwrap ended with exit ${probe.exitCode}`;
  if (full !== null && !PROC_REFUSED.test(full.said)) return { sandboxed: false, why: said(full) };
  if (runnerProc === null) return { sandboxed: false, why: full === null ? "not probed" : said(full) };
  if (runnerProc.exitCode === 0) return { sandboxed: "runner-proc", why: full === null ? null : said(full) };
  if (runnerProc.exitCode === RUNNER_ROOT_REACHED) {
    return {
      sandboxed: false,
      why:
        `${full === null ? "" : `${said(full)}; `}with the runner's /proc instead, a playbook reaches the runner's files ` +
        "through the RTE's /proc/PID/root (bwrap is set-uid, or playbooks run as root), hidden folders and all",
    };
  }
  return { sandboxed: false, why: full === null ? said(runnerProc) : `${said(full)}; with the runner's /proc: ${said(runnerProc)}` };
}

/**
 * Whether playbooks run under bwrap, and with which /proc: RTE_SANDBOX=bwrap and bwrap starts
 * the very sandbox a job gets here as the playbook's user (chooseSandbox). `proc`:
 * RTE_SANDBOX_PROC (runner: the runner-proc mode without trying the whole sandbox first). Says
 * what it found, loudly when it is not the whole sandbox. `legacy`: the setting came from
 * RTE_PLAYBOOK_SANDBOX, which is deprecated (said at start).
 */
export async function detectSandbox(
  mode: "bwrap" | "none",
  user: PlaybookUser | null,
  log: (line: string) => void,
  legacy = false,
  proc: "private" | "runner" = "private",
): Promise<Sandboxed> {
  if (legacy) log("RTE_PLAYBOOK_SANDBOX is deprecated: use RTE_SANDBOX=bwrap (its auto) or RTE_SANDBOX=none (its off)");
  if (mode === "none") {
    log(
      "RTE_SANDBOX=none: playbooks run without bubblewrap: they see the runner's processes and its whole file system as " +
        "their user may, a playbook outlives this RTE if the RTE is killed with SIGKILL (until its next start ends it), and " +
        "jobs of forms with sandbox: {network: false} fail",
    );
    return false;
  }
  // The very command a job runs, with `true` for the playbook (env's --ignore-signal needs coreutils 8.31).
  const probe = async (sandboxed: Sandboxed, command: string[]): Promise<SandboxProbe> => {
    const ran = await execa("env", ["--ignore-signal=TERM", "bwrap", ...bwrapArgs(sandboxed), "--unshare-net", "--", ...command], {
      reject: false,
      timeout: 15_000,
      stdin: "ignore",
      ...(user ? { uid: user.uid, gid: user.primaryGid } : {}),
    });
    return { exitCode: ran.exitCode ?? -1, said: String(ran.stderr || ran.shortMessage || "") };
  };
  const full = proc === "private" ? await probe(true, ["true"]) : null;
  // Only with the runner's /proc: can the playbook reach this process's own view of the file system?
  const runnerRoot = ["sh", "-c", `if [ -e /proc/${process.pid}/root/ ]; then exit ${RUNNER_ROOT_REACHED}; fi`];
  const runnerProc = full === null || (full.exitCode !== 0 && PROC_REFUSED.test(full.said)) ? await probe("runner-proc", runnerRoot) : null;
  const { sandboxed, why } = chooseSandbox(full, runnerProc);
  if (sandboxed === true) {
    log(
      "playbooks run in a pid namespace of their own (bubblewrap): nothing of a playbook outlives this RTE; " +
        "each sees its own processes only, the system read-only, and none of the runner's folders",
    );
  } else if (sandboxed === "runner-proc") {
    log(
      `WARNING: playbooks run in a sandbox with the runner's /proc (bubblewrap, ${why === null ? "RTE_SANDBOX_PROC=runner" : `the kernel refuses a /proc of their own: ${why}`}): ` +
        "nothing of a playbook outlives this RTE, it sees the system read-only and none of the runner's folders, " +
        "but it sees every process of the runner and their command lines in /proc, a concurrent job's arguments " +
        "included (their environment and files stay closed to it). Give the container a /proc the kernel lets it mount " +
        "again (Docker: --security-opt systempaths=unconfined, or --privileged) for a /proc of their own",
    );
  } else {
    log(
      `WARNING: playbooks run without a sandbox (${why}): they see the runner's processes and its whole file system as ` +
        `their user may, if this RTE is killed with SIGKILL its running playbooks go on unsupervised until its next start ` +
        `ends them, and jobs of forms with sandbox: {network: false} fail. Install bubblewrap (Debian: apt-get install ` +
        `bubblewrap; a non-root RTE also needs unprivileged user namespaces; in a container, a /proc the kernel lets it ` +
        `mount again), or set RTE_SANDBOX=none to silence this`,
    );
  }
  return sandboxed;
}
