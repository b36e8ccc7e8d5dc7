/**
 * A playbook must not outlive its RTE. The RTE ends a playbook's process group with every job,
 * but an RTE killed with SIGKILL ends nothing: its playbook would run on unsupervised until the
 * RTE's next start (server/rte/leftovers.ts). So, where bubblewrap works, every playbook runs
 * in a pid namespace of its own:
 *
 *   env --ignore-signal=TERM bwrap --dev-bind / / --unshare-pid --unshare-ipc --die-with-parent --as-pid-1 -- python3 playbook-init.py --init 4 --secrets-fd 5 --secrets-fifo F -- ansible-playbook ...
 *
 * bwrap dies with its parent, the RTE (--die-with-parent: PR_SET_PDEATHSIG), playbook-init.py
 * (PID 1 of the namespace) with bwrap, and when PID 1 of a pid namespace dies the kernel kills
 * every process in it, including those that left the process group (setsid). Nothing else
 * changes: the file system is the same (`--dev-bind / /`), the user is the same (the RTE's, or
 * RTE_PLAYBOOK_USER, set before bwrap starts: then bwrap makes a user namespace for the pid
 * namespace), and everything is still one process group, led by bwrap, that the RTE ends with
 * SIGTERM then SIGKILL. bwrap and PID 1 ignore that SIGTERM (`env --ignore-signal`; PID 1
 * restores it for ansible-playbook), so the playbook gets its grace period, and only the
 * SIGKILL after it takes down the namespace at once. PID 1 waits for everything in the
 * namespace, so ansible-playbook's own exit is reported on fd 4 (`exit N`, `signal N`).
 *
 * A playbook's /tmp, /var/tmp, /dev/shm and /run/lock (the folders every user may write to) are
 * one folder of its job (`.playform_tmp`): what it leaves there goes with the job, counts towards
 * the job's disk limit (RTE_JOB_DISK_LIMIT), and no other job sees it. /dev/shm is not a tmpfs of
 * its own: memory no disk check counts, half the RAM per job. The job's folder is bound again at its own path
 * when it lies under /tmp (the default RTE_JOBS_DIR does), or the private /tmp would hide it.
 * RTE_PLAYBOOK_PRIVATE_TMP=off keeps the runner's /tmp (playbooks that hand files to other
 * programs of the runner through it).
 *
 * What a playbook can no longer do on the runner itself: leave a daemon running after the job
 * (it is killed with the namespace), or mount a file system for the rest of the machine (its
 * mounts are in its own mount namespace). `become` (sudo) on the runner itself fails when
 * bwrap needs a user namespace (a non-root RTE, or RTE_PLAYBOOK_USER). RTE_PLAYBOOK_SANDBOX=off
 * runs playbooks as before.
 *
 * Without bwrap (not installed, or user namespaces disabled for a non-root RTE), the RTE says
 * at start what that means: it cannot make the kernel end a playbook when the RTE is killed
 * (Node has no PR_SET_PDEATHSIG for its children, and a death signal would reach
 * ansible-playbook only, not the workers and ssh it started): such a playbook runs on until
 * the RTE's next start ends its process group.
 */
import fs from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { callbackPluginDir, playbookInitScript } from "./ansible/plugin-path";
import type { PlaybookUser } from "./playbook-user";

/**
 * bwrap's options before `--`: see the header. No `--proc /proc`: the playbook keeps the
 * machine's /proc, so what it may see there (and what it may not: another user's
 * /proc/<pid>/environ) is exactly as without the namespace. An IPC namespace of its own: System
 * V shared memory, semaphores and message queues outlive their processes, so a playbook's
 * `ipcmk -M 100M` was RAM held on the runner after the job, counted by nothing and removed by
 * no one; the namespace's objects go with it. (POSIX shared memory and semaphores are files in
 * /dev/shm, the job's private folder.)
 */
export const BWRAP_ARGS = ["--dev-bind", "/", "/", "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--as-pid-1"];
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

export interface PrivateTmp {
  /** The job's folder that stands in for /tmp and /var/tmp. */
  tmpDir: string;
  /** The job's own folder, bound again at its path when it lies under one of PRIVATE_TMP_MOUNTS. */
  jobDir: string;
  /**
   * Playform's own folders the playbook runs with (playbook-init.py, the callback plugin, the
   * vault password script) that lie under one of PRIVATE_TMP_MOUNTS (Playform installed or
   * cloned in /tmp): bound again, read-only, or the playbook could not start.
   */
  readOnly?: string[];
}

/** The private /tmp mount point of the job folder, when it lies under one of PRIVATE_TMP_MOUNTS (it must exist in tmpDir). */
/** The folders of `folders` the private /tmp would hide, without those inside another of them. */
export function hiddenFolders(folders: readonly string[]): string[] {
  const hidden = [...new Set(folders.map((f) => path.resolve(f)))].filter((f) => hiddenJobDir(f) !== null);
  return hidden.filter((f) => !hidden.some((other) => other !== f && f.startsWith(`${other}/`)));
}

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
 * Makes a job's (or an inventory listing's) temp folder, `.playform_tmp` in its folder, before
 * the folder is handed over, and says how its command runs with it: bwrap's private /tmp (null
 * without the sandbox or with RTE_PLAYBOOK_PRIVATE_TMP=off) and the TMPDIR it gets: /tmp under
 * the private /tmp, else the folder itself, so programs that honour TMPDIR (Python's tempfile,
 * mktemp, sort) still write where it is counted and removed with the job.
 */
export function preparePrivateTmp(
  folder: string,
  sandboxed: boolean,
  setting: "on" | "off",
  support: readonly string[] = sandboxSupportFolders(),
): { privateTmp: PrivateTmp | null; tmpdir: string } {
  const tmpDir = path.join(folder, ".playform_tmp");
  // Not recursive: a form file of that name fails the job here instead of being used as /tmp.
  fs.mkdirSync(tmpDir, { mode: 0o700 });
  if (!sandboxed || setting === "off") return { privateTmp: null, tmpdir: tmpDir };
  // The folder's mount point under the private /tmp is made here, as the RTE, not by bwrap as
  // the playbook user.
  // Only folders there are: bwrap cannot bind a missing one (an environment's collection folder
  // not made yet), and the command would not start.
  const readOnly = hiddenFolders(support).filter((folder) => isFolder(folder));
  for (const target of [folder, ...readOnly]) {
    const mountPoint = hiddenJobDir(target);
    if (mountPoint !== null) fs.mkdirSync(path.join(tmpDir, mountPoint), { recursive: true, mode: 0o700 });
  }
  return { privateTmp: { tmpDir, jobDir: folder, readOnly }, tmpdir: "/tmp" };
}

/**
 * Makes the mount points, in a job's private /tmp, of folders that wrapPlaybook mounts read-only
 * and that the private /tmp would hide (a cache entry in the jobs folder under /tmp).
 */
export function privateTmpMountPoints(tmp: PrivateTmp | null, folders: readonly string[]): void {
  if (tmp === null) return;
  for (const folder of folders) {
    const mountPoint = hiddenJobDir(folder);
    if (mountPoint !== null) fs.mkdirSync(path.join(tmp.tmpDir, mountPoint), { recursive: true, mode: 0o700 });
  }
}

/** bwrap's mounts for a private /tmp, after BWRAP_ARGS (bwrap applies them in order). */
export function privateTmpArgs(tmp: PrivateTmp, exists: (folder: string) => boolean = isFolder): string[] {
  const args: string[] = [];
  for (const mount of PRIVATE_TMP_MOUNTS) if (exists(mount)) args.push("--bind", tmp.tmpDir, mount);
  if (hiddenJobDir(tmp.jobDir) !== null) args.push("--bind", path.resolve(tmp.jobDir), path.resolve(tmp.jobDir));
  for (const folder of tmp.readOnly ?? []) args.push("--ro-bind", folder, folder);
  return args;
}

/**
 * The command that starts ansible-playbook (`playbook`), through playbook-init.py and, when
 * `sandboxed`, bwrap. `secretsFifo`: where playbook-init.py makes the FIFO the playbook's
 * `-e @` names (the job's hidden extravars, written to SECRETS_FD); null for a command that
 * reads no secrets (ansible-inventory for an inventory listing, which runs in the same sandbox).
 * `privateTmp`: under bwrap, the playbook's own /tmp. `readOnly`: folders mounted read-only at
 * their own path under bwrap (a job's installed requirements: not writable whoever owns them);
 * those under the private /tmp need a mount point there (privateTmpMountPoints).
 */
export function wrapPlaybook(
  playbook: { file: string; args: string[] },
  initScript: string,
  secretsFifo: string | null,
  sandboxed: boolean,
  privateTmp: PrivateTmp | null = null,
  readOnly: readonly string[] = [],
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
  const mounts = [...(privateTmp ? privateTmpArgs(privateTmp) : []), ...readOnly.flatMap((folder) => ["--ro-bind", folder, folder])];
  return { file: "env", args: ["--ignore-signal=TERM", "bwrap", ...BWRAP_ARGS, ...mounts, "--", ...inner] };
}

/**
 * Whether playbooks run under bwrap: RTE_PLAYBOOK_SANDBOX=auto and bwrap starts a pid namespace
 * here as the playbook's user. Says what it found, loudly when it is not.
 */
export async function detectSandbox(mode: "auto" | "off", user: PlaybookUser | null, log: (line: string) => void): Promise<boolean> {
  if (mode === "off") {
    log(
      "RTE_PLAYBOOK_SANDBOX=off: playbooks run without a pid namespace; a playbook outlives this RTE if the RTE is killed with SIGKILL, until its next start ends it",
    );
    return false;
  }
  // The very command a job runs, with `true` for the playbook (env's --ignore-signal needs coreutils 8.31).
  const probe = await execa("env", ["--ignore-signal=TERM", "bwrap", ...BWRAP_ARGS, "--", "true"], {
    reject: false,
    timeout: 15_000,
    stdin: "ignore",
    ...(user ? { uid: user.uid, gid: user.primaryGid } : {}),
  });
  if (probe.exitCode === 0) {
    log("playbooks run in a pid namespace of their own (bubblewrap): nothing of a playbook outlives this RTE");
    return true;
  }
  const why =
    probe.exitCode === 127 ? "bwrap is not installed" : String(probe.stderr || probe.shortMessage || `exit ${probe.exitCode}`).trim();
  log(
    `WARNING: playbooks run without a pid namespace (${why}): if this RTE is killed with SIGKILL its running playbooks go on ` +
      `unsupervised until its next start ends them. Install bubblewrap (Debian: apt-get install bubblewrap; a non-root RTE also ` +
      `needs unprivileged user namespaces), or set RTE_PLAYBOOK_SANDBOX=off to silence this`,
  );
  return false;
}
