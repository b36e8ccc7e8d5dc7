/**
 * Who a playbook runs as.
 *
 * A playbook is arbitrary code. Run as the RTE's own user it can read everything the RTE can:
 * the runner's token (its state file, /proc/<rte pid>/environ), the spool, the file cache, the
 * other jobs' folders, and, next to the app (`npm start`), the app's environment and data
 * (ENCRYPTION_SECRET, DATABASE_URL, the admin password, data/encryption.key, the database).
 * /proc/<pid>/environ and 0600 files are closed to other users, so the boundary is a user of its
 * own: when the RTE runs as root, playbooks run as RTE_PLAYBOOK_USER (default `playform-run`,
 * created when missing), an unprivileged user with no home and no login shell.
 *
 * All jobs share that user; each job also gets a group of its own (a gid from a range no real
 * group uses), and its folder is root:<that group> 0770. So a job can enter its own folder and
 * no other job's, and since Linux only lets a process read another's /proc/<pid>/environ, memory
 * or open files when user and group both match, jobs cannot read each other's processes either.
 * (They can still signal each other: signals only look at the user.)
 *
 * Switching users needs root. An RTE that is not root runs playbooks as itself and says loudly
 * at start what that means; RTE_PLAYBOOK_USER naming another user is then refused. (A sudo rule
 * would switch the user, but the RTE could then no longer signal the playbook's process group,
 * and it must end that group with every job.)
 */
import fs from "node:fs";
import path from "node:path";
import { execa } from "execa";
import type { RteEnv } from "./env";

export const DEFAULT_PLAYBOOK_USER = "playform-run";
/** Per-job groups: JOB_GID_BASE + job id modulo JOB_GID_SPAN, far above any real group. */
const JOB_GID_BASE = 2_000_000_000;
const JOB_GID_SPAN = 100_000_000;

export interface PlaybookUser {
  name: string;
  uid: number;
  /** The user's own group: used for every job when per-job groups are not available. */
  primaryGid: number;
  /** Whether each job runs with a group of its own (see jobGid). */
  jobGroups: boolean;
}

export class PlaybookUserError extends Error {}

/** The group a job's playbook runs with. */
export function jobGid(user: PlaybookUser, jobId: number): number {
  return user.jobGroups ? JOB_GID_BASE + (jobId % JOB_GID_SPAN) : user.primaryGid;
}

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
}

async function lookUpUser(name: string): Promise<PasswdEntry | null> {
  // getent also asks NSS (LDAP, sssd); /etc/passwd where there is no getent.
  const answer = await execa("getent", ["passwd", name], { reject: false });
  let line: string | undefined;
  if (answer.exitCode === 0) line = answer.stdout.split("\n")[0];
  else if (answer.exitCode === 2)
    return null; // getent: not found
  else {
    try {
      line = fs
        .readFileSync("/etc/passwd", "utf8")
        .split("\n")
        .find((l) => l.startsWith(`${name}:`));
    } catch {
      return null;
    }
  }
  const fields = line?.split(":");
  if (!fields || fields.length < 4) return null;
  return { name, uid: Number(fields[2]), gid: Number(fields[3]) };
}

async function createUser(name: string, log: (line: string) => void): Promise<void> {
  const args = ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name];
  const result = await execa("useradd", args, { reject: false });
  if (result.exitCode === 0) {
    log(`created the user ${name} to run playbooks as (useradd ${args.join(" ")})`);
    return;
  }
  // Another RTE on this machine may have created it at the same moment (exit 9: exists).
  if (await lookUpUser(name)) return;
  throw new PlaybookUserError(
    `the user ${name}, which playbooks run as, does not exist and could not be created ` +
      `(useradd: ${(result.stderr || result.message || `exit ${result.exitCode}`).trim()}). Create it: useradd ${args.join(" ")}`,
  );
}

/** Whether per-job groups can be used: the range must be mapped in this user namespace. */
function jobGroupsAvailable(): boolean {
  let map: string;
  try {
    map = fs.readFileSync("/proc/self/gid_map", "utf8");
  } catch {
    return false;
  }
  return map
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .some(([inside, , count]) => inside! <= JOB_GID_BASE && inside! + count! >= JOB_GID_BASE + JOB_GID_SPAN);
}

/**
 * Whether a user can reach `target` and use it: every folder above it open to it (x), and the
 * target itself granting `bits` (4 read, 2 write, 1 execute/enter), judged by the owner, group
 * or other bits that apply to it. Null when it can, else the path that stops it.
 */
export function blockedFor(target: string, uid: number, gids: number[], bits: number): string | null {
  const allows = (file: string, wanted: number) => {
    const st = fs.statSync(file);
    const granted = st.uid === uid ? (st.mode >> 6) & 7 : gids.includes(st.gid) ? (st.mode >> 3) & 7 : st.mode & 7;
    return (granted & wanted) === wanted;
  };
  const resolved = fs.realpathSync(target);
  let dir: string = path.sep;
  for (const part of resolved.split(path.sep).filter(Boolean).slice(0, -1)) {
    dir = path.join(dir, part);
    if (!allows(dir, 1)) return dir;
  }
  return allows(resolved, bits) ? null : resolved;
}

/**
 * What the playbook user must reach: the jobs folder (enter), the callback plugins (read) and
 * the vault password script (read and run). Throws PlaybookUserError naming what stops it.
 */
export function checkReachable(
  user: PlaybookUser,
  jobsDir: string,
  pluginDir: string | null,
  vaultScript: string | null,
  initScript: string | null = null,
  requirementsDir: string | null = null,
): void {
  const gids = user.jobGroups ? [] : [user.primaryGid];
  const needs: [string | null, number, string][] = [
    [jobsDir, 1, "the jobs folder (RTE_JOBS_DIR), where its job's folder is"],
    [pluginDir, 5, "Playform's ansible callback plugins"],
    [pluginDir && path.join(pluginDir, "playform_events.py"), 4, "Playform's ansible callback plugin"],
    [vaultScript, 5, "the vault password script"],
    // Read by python3 as the playbook user: it starts ansible-playbook (sandbox.ts).
    [initScript, 4, "the playbook start script"],
    // Enter only: a job reads its own entry, by its key, never the list of them.
    [requirementsDir, 1, "the requirements cache (RTE_REQUIREMENTS_DIR), where its installed requirements.yml is"],
  ];
  for (const [target, bits, what] of needs) {
    if (!target) continue;
    const blocked = blockedFor(target, user.uid, gids, bits);
    if (blocked) {
      throw new PlaybookUserError(
        `playbooks run as ${user.name}, who cannot reach ${what} (${target}): ${blocked} is closed to it. ` +
          (target === jobsDir
            ? `Set RTE_JOBS_DIR to a folder whose parents any user may enter.`
            : target === requirementsDir
              ? `Set RTE_REQUIREMENTS_DIR to a folder whose parents any user may enter (or leave it unset: the jobs folder's).`
              : `Install Playform where any user may read it (e.g. /opt/playform, folders 755), or chmod o+rx the folders above it.`),
      );
    }
  }
}

/**
 * The user playbooks run as, or null for the RTE's own user (after a loud warning). Creates the
 * default user when the RTE is root and it is missing. Throws PlaybookUserError (a bad setting).
 */
export async function resolvePlaybookUser(env: RteEnv, log: (line: string) => void): Promise<PlaybookUser | null> {
  const root = process.getuid?.() === 0;
  const configured = env.RTE_PLAYBOOK_USER;
  const name = configured ?? (root ? DEFAULT_PLAYBOOK_USER : "");
  if (name === "") {
    warnSameUser(root, log);
    return null;
  }
  if (!root) {
    const me = await lookUpUser(name);
    if (me && me.uid === process.getuid?.()) {
      warnSameUser(false, log);
      return null;
    }
    throw new PlaybookUserError(
      `RTE_PLAYBOOK_USER=${name}, but this RTE is not root (uid ${process.getuid?.()}) and cannot switch users. ` +
        `Run the RTE as root (it then runs playbooks as ${name}), or unset RTE_PLAYBOOK_USER to run them as this user ` +
        `(unsafe: see "Fault tolerance and security" in docs/security.md).`,
    );
  }
  let entry = await lookUpUser(name);
  if (!entry) {
    if (configured !== undefined) {
      throw new PlaybookUserError(
        `RTE_PLAYBOOK_USER=${name}: no such user. Create it (useradd --system --no-create-home --home-dir /nonexistent ` +
          `--shell /usr/sbin/nologin ${name}) or leave RTE_PLAYBOOK_USER unset (the RTE then creates ${DEFAULT_PLAYBOOK_USER}).`,
      );
    }
    await createUser(name, log);
    entry = await lookUpUser(name);
    if (!entry) throw new PlaybookUserError(`the user ${name} was created but cannot be found (getent passwd ${name})`);
  }
  if (entry.uid === 0 || entry.gid === 0) {
    throw new PlaybookUserError(`RTE_PLAYBOOK_USER=${name} is root (uid ${entry.uid}, gid ${entry.gid}): name an unprivileged user`);
  }
  const user: PlaybookUser = { name, uid: entry.uid, primaryGid: entry.gid, jobGroups: jobGroupsAvailable() };
  log(
    `playbooks run as ${name} (uid ${user.uid}), ` +
      (user.jobGroups
        ? `each job with a group of its own (gid ${JOB_GID_BASE} + job id), in a folder under ${env.jobsDir} only it can enter`
        : `all jobs with its group ${user.primaryGid} (gids from ${JOB_GID_BASE} are not mapped in this user namespace): ` +
          `concurrent jobs on this runner can read each other's folders`),
  );
  return user;
}

function warnSameUser(root: boolean, log: (line: string) => void): void {
  const who = root ? "root" : `this RTE's own user (uid ${process.getuid?.()})`;
  log(`WARNING: playbooks run as ${who}. A playbook can then read everything this process can: the runner's token`);
  log(`WARNING: (RTE_STATE_PATH, /proc/<pid>/environ), the spool, other jobs' files and, next to the app (npm start),`);
  log(`WARNING: the app's secrets (ENCRYPTION_SECRET, DATABASE_URL, the admin password, data/encryption.key, the database).`);
  log(
    root
      ? `WARNING: unset RTE_PLAYBOOK_USER to run them as ${DEFAULT_PLAYBOOK_USER}.`
      : `WARNING: run the RTE as root to run playbooks as ${DEFAULT_PLAYBOOK_USER} (docs/security.md: "Fault tolerance and security").`,
  );
}
