/**
 * How much disk a job takes: its folder (the form's files, what the playbook writes there, its
 * private /tmp) and the output it printed. A runner's disk is shared by every job and by the
 * spool that keeps output until the app has it: one job that fills it stops the others and
 * loses their output. So the RTE measures each running job every RTE_JOB_DISK_CHECK_SECONDS and
 * fails the one that passes RTE_JOB_DISK_LIMIT. A requirements install, which the cache keeps
 * after its job, is measured the same way while it runs, by what it adds to its job's folder
 * (RTE_REQUIREMENTS_INSTALL_MAX_BYTES).
 *
 * A measure, not a quota: between two checks a job may write past the limit by what it writes
 * in that time. The kernel's quotas would stop it at the byte, but need a file system mounted
 * with them and root to set them, which a runner in a pod or on a developer's machine does not
 * have.
 */
import { execa } from "execa";
import { randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import fsp, { type FileHandle } from "node:fs/promises";

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1000,
  kb: 1000,
  m: 1000 ** 2,
  mb: 1000 ** 2,
  g: 1000 ** 3,
  gb: 1000 ** 3,
  t: 1000 ** 4,
  tb: 1000 ** 4,
  ki: 1024,
  kib: 1024,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
  ti: 1024 ** 4,
  tib: 1024 ** 4,
};

/**
 * "10GiB", "500 MB", "1.5Ti", "1048576" → bytes (KiB, MiB, GiB, TiB: powers of 1024; KB, MB,
 * GB, TB: powers of 1000, as Kubernetes quantities), or null when it is not a size.
 */
export function parseByteSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) return null;
  const unit = UNITS[match[2]!.toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** 10737418240 → "10 GiB", for messages. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

export interface FolderUsage {
  /** Bytes of disk the folder's files take (allocated blocks: a sparse file counts what it holds). */
  bytes: number;
  /** Inodes the folder takes: its files and folders, each hard-linked file once. */
  inodes: number;
  /** Entries that could not be read (gone meanwhile, or closed to the RTE): not counted. */
  unreadable: number;
  /** Of those, folders closed to the RTE (du: "Permission denied"), whose contents went uncounted. */
  closed: number;
}

/**
 * The disk a folder takes, by GNU du (`du -s -x -B1`): allocated blocks, each inode once (hard
 * links to one file do not add up), symbolic links not followed, other mounts not entered (a
 * bind mount inside the job folder is not the job's). du, not a walk in JavaScript: a job of
 * hundreds of thousands of files made a walk here take longer than the job (about 7,000
 * entries a second on a busy runner), so no check ever ended; du reads them in C, in a process
 * of its own, never on the RTE's event loop.
 */
export async function folderUsage(root: string): Promise<FolderUsage> {
  // Two du side by side: GNU du counts blocks or inodes in one pass, not both.
  const du = (args: string[]) => execa("du", ["-s", "-x", ...args, "--", root], { reject: false, stdin: "ignore", encoding: "utf8" });
  const [blocks, inodes] = await Promise.all([du(["-B1"]), du(["--inodes"])]);
  const bytes = Number(/^(\d+)\s/.exec(blocks.stdout)?.[1]);
  const count = Number(/^(\d+)\s/.exec(inodes.stdout)?.[1]);
  // du still sums what it could read when some entry could not be (exit status 1).
  const complaints = blocks.stderr.split("\n").filter((line) => line.trim() !== "");
  const unreadable = complaints.length;
  const closed = complaints.filter((line) => line.endsWith(": Permission denied")).length;
  if (!Number.isFinite(bytes)) return { bytes: 0, inodes: Number.isFinite(count) ? count : 0, unreadable: Math.max(unreadable, 1), closed };
  return { bytes, inodes: Number.isFinite(count) ? count : 0, unreadable, closed };
}

/**
 * Opens again, to their owner, the folders under `root` that the RTE's own user owns and has
 * closed to itself (`chmod 000`, or no read, write or search bit): an RTE that is not root
 * runs playbooks as its own user, and a playbook that closed a folder of its job hid the bytes
 * in it from du and kept the RTE from removing the folder after the job. The owner may always
 * change a file's mode, so the RTE can undo it; root needs none of this. find visits a folder
 * before its contents and runs each chmod at once, so nested closed folders open one after
 * the other. Folders of another user are left alone (chmod fails there; nothing to report).
 */
export async function openClosedFolders(root: string): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0) return;
  await execa("find", [root, "-xdev", "-type", "d", "-user", String(uid), "!", "-perm", "-u=rwx", "-exec", "chmod", "u+rwx", "{}", ";"], {
    reject: false,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
}

/**
 * Removes a folder a playbook had (a job's, an inventory listing's), off the event loop (a
 * folder of hundreds of thousands of files took fs.rmSync 6 to 11 s, while the RTE sent no
 * output and no heartbeat for any job). A folder inside it that the playbook closed to the
 * RTE's user is opened first (openClosedFolders).
 *
 * Never by a path a process of the job can change (attack 9 on issue 34): without the sandbox a
 * `setsid` child of the playbook outlives the job, as the playbook user and the job's group, and
 * may rename in the folder while the RTE (root) removes it. fs.rm goes by path (`dir/d/name`):
 * a folder `d` swapped for a link to a root-only folder between its lstat and the unlinks, and
 * root removed that folder's files. So each folder is opened with O_DIRECTORY|O_NOFOLLOW through
 * its parent's descriptor and everything in it is read, unlinked and rmdir'ed through its own
 * (`/proc/self/fd/N/name`: openat/unlinkat's effect, which Node lacks; unlink and rmdir never
 * follow their last component, the magic link resolves to the folder opened, never to a path).
 * Whatever is renamed or swapped meanwhile, every removal falls in a folder of the tree that was
 * opened: a link swapped in is removed as a link, never followed. Certain, unlike the other ways
 * considered: comparing (dev, ino) of a path before and after each unlink leaves a window, and
 * moving the folder under a root-only one leaves a process whose working folder is inside it
 * free to rename relative to it. Linux only (`/proc`), as the copy of installs (copy-tree.ts).
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await removeThrough(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EACCES") throw error;
    await openClosedFolders(dir);
    await removeThrough(dir);
  }
}

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fsConstants;
/**
 * Folders open at once on the way down: one descriptor each. Deeper folders are moved up to the
 * top folder (a rename through descriptors too) and removed from there, so a tree nested a
 * hundred thousand deep (mkdir and chdir in a loop) costs no more descriptors than this.
 */
const MAX_OPEN_DEPTH = 64;
/** Unlinks in flight at once within a folder: the thread pool's work, not the event loop's. */
const UNLINKS_AT_ONCE = 16;
/** Readings of a folder that still finds something: a process still writing there is not outrun forever. */
const MAX_PASSES = 20;

/** A name inside a folder opened as `dir`, reached through that descriptor (never the path again). */
function inside(dir: FileHandle, name: string): string {
  return `/proc/self/fd/${dir.fd}/${name}`;
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

async function removeThrough(dir: string): Promise<void> {
  let top: FileHandle;
  try {
    top = await fsp.open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    if (errno(error) === "ENOENT") return;
    // Not a folder (the caller's own path, in a folder of the RTE's): removed as what it is.
    if (errno(error) === "ELOOP" || errno(error) === "ENOTDIR") return fsp.rm(dir, { force: true });
    throw error;
  }
  try {
    const state = { top, moved: 0 };
    await emptyFolder(top, 0, state);
  } finally {
    await top.close();
  }
  await fsp.rmdir(dir).catch((error: unknown) => {
    if (errno(error) !== "ENOENT") throw error;
  });
}

/**
 * Removes everything in the folder opened as `dir`, at `depth` below the top: files and links
 * unlinked (in batches), folders opened without following a link, emptied and removed, each
 * through the descriptor of the folder it is in. Read again until empty: what a process adds or
 * renames meanwhile is met on the next reading.
 */
async function emptyFolder(dir: FileHandle, depth: number, state: { top: FileHandle; moved: number }): Promise<void> {
  for (let pass = 0; ; pass++) {
    const names = await fsp.readdir(`/proc/self/fd/${dir.fd}`);
    if (names.length === 0) return;
    // The top folder reads again for each folder moved up into it (MAX_OPEN_DEPTH).
    if (pass >= MAX_PASSES + (depth === 0 ? state.moved : 0)) {
      throw Object.assign(new Error(`a folder kept changing while it was removed (${names.length} entries left)`), { code: "ENOTEMPTY" });
    }
    const folders: string[] = [];
    for (let i = 0; i < names.length; i += UNLINKS_AT_ONCE) {
      await Promise.all(
        names.slice(i, i + UNLINKS_AT_ONCE).map(async (name) => {
          try {
            await fsp.unlink(inside(dir, name));
          } catch (error) {
            // EISDIR: a folder (Linux's answer to unlink); ENOENT: renamed away, met elsewhere or gone.
            if (errno(error) === "EISDIR" || errno(error) === "EPERM") folders.push(name);
            else if (errno(error) !== "ENOENT") throw error;
          }
        }),
      );
    }
    for (const name of folders) await removeFolder(dir, name, depth, state);
  }
}

/** Removes the folder `name` of the folder opened as `dir` (see emptyFolder). */
async function removeFolder(dir: FileHandle, name: string, depth: number, state: { top: FileHandle; moved: number }): Promise<void> {
  if (depth + 1 >= MAX_OPEN_DEPTH) {
    // Removed from the top later: the chain of descriptors above it is closed by then.
    const up = inside(state.top, `.playform-removing-${randomBytes(6).toString("hex")}`);
    try {
      await fsp.rename(inside(dir, name), up);
      state.moved += 1;
    } catch (error) {
      if (errno(error) !== "ENOENT") throw error;
    }
    return;
  }
  let sub: FileHandle;
  try {
    sub = await fsp.open(inside(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    // ELOOP, ENOTDIR: swapped for a link or a file since its unlink: the next reading unlinks it.
    if (["ELOOP", "ENOTDIR", "ENOENT"].includes(errno(error) ?? "")) return;
    throw error;
  }
  try {
    await emptyFolder(sub, depth + 1, state);
  } finally {
    await sub.close();
  }
  try {
    await fsp.rmdir(inside(dir, name));
  } catch (error) {
    // Renamed, swapped for a link, or filled again meanwhile: the next reading of `dir` meets it.
    if (!["ENOENT", "ENOTDIR", "ENOTEMPTY", "EEXIST"].includes(errno(error) ?? "")) throw error;
  }
}

/**
 * The folder's usage with nothing closed to the RTE: when du could not read a folder, the
 * folders the RTE's user owns are opened again (openClosedFolders) and the folder measured
 * once more. What stays closed after that is in `closed`.
 */
export async function measurableFolderUsage(root: string): Promise<FolderUsage> {
  const first = await folderUsage(root);
  if (first.closed === 0) return first;
  await openClosedFolders(root);
  return folderUsage(root);
}

/**
 * The disk an inode stands for on the file system holding `folder`: its size over its number of
 * inodes (ext4 makes one per 16 KiB by default), or 0 where inodes are not a fixed share of
 * the disk (XFS and btrfs make them as needed: statfs reports none, or as many as blocks).
 * A job's inodes count towards its disk limit at this rate: 300,000 empty files take almost
 * no bytes but the inodes of 4.6 GiB on ext4, and a runner out of inodes can write nothing.
 */
export async function bytesPerInode(folder: string): Promise<number> {
  const stats = await fsp.statfs(folder).catch(() => null);
  if (!stats || stats.files <= 0 || stats.files >= stats.blocks) return 0;
  return Math.floor((stats.blocks * stats.bsize) / stats.files);
}

/** `major:minor` in hex as /proc/PID/maps writes a device → the number stat gives (the kernel's new_encode_dev). */
function deviceNumber(text: string): number | null {
  const match = /^([0-9a-f]+):([0-9a-f]+)$/i.exec(text);
  if (!match) return null;
  const major = parseInt(match[1]!, 16);
  const minor = parseInt(match[2]!, 16);
  return (minor & 0xff) + major * 0x100 + (minor & ~0xff) * 0x1000;
}

/**
 * The deleted files process `pid` has mapped (mmap), by `dev:ino`, with their allocated bytes:
 * a file written, mapped with MAP_SHARED, its descriptor closed and the file deleted keeps its
 * blocks as long as the mapping lives and shows in /proc/PID/maps only. The size comes from
 * the mapping's /proc/PID/map_files link (stat reaches the file); where the RTE may not follow
 * it, from the mapped length.
 */
async function deletedMappings(pid: number, found: Map<string, number>): Promise<void> {
  const maps = await fsp.readFile(`/proc/${pid}/maps`, "utf8").catch(() => "");
  for (const line of maps.split("\n")) {
    if (!line.endsWith(" (deleted)")) continue;
    // start-end perms offset dev inode path (deleted)
    const [range, , , dev, inode] = line.split(/\s+/);
    const device = deviceNumber(dev ?? "");
    if (!range || device === null || !inode || inode === "0") continue;
    const key = `${device}:${inode}`;
    const file = await fsp.stat(`/proc/${pid}/map_files/${range}`).catch(() => null);
    const [start, end] = range.split("-").map((n) => parseInt(n, 16));
    const bytes = file?.isFile() ? file.blocks * 512 : Math.max(0, (end ?? 0) - (start ?? 0));
    found.set(key, Math.max(found.get(key) ?? 0, bytes));
  }
}

/**
 * The disk held by files that are deleted but still open, or mapped, in a process of the tree under `root`
 * (the job's process group leader: under bubblewrap every process of the playbook's pid
 * namespace descends from it, a `setsid` one included). du cannot see such a file, and a
 * playbook that writes to a file it has unlinked would otherwise fill the disk unmeasured.
 * Each file once (by device and inode), allocated blocks as du counts them; a memfd counts too
 * (RAM held by the job). Processes this RTE may not inspect (another user's, without root) and
 * processes that end meanwhile are skipped. Reads /proc asynchronously: a runner has hundreds
 * of processes, a playbook at most its open-file limit of descriptors each.
 */
export async function deletedFilesHeld(root: number): Promise<number> {
  const parents = new Map<number, number[]>();
  const entries = await fsp.readdir("/proc").catch(() => [] as string[]);
  await Promise.all(
    entries.map(async (entry) => {
      if (entry.charCodeAt(0) > 57) return; // not a pid: "self", "sys", ...
      const stat = await fsp.readFile(`/proc/${entry}/stat`, "utf8").catch(() => null);
      // The command name (2nd field) may hold spaces and parentheses: the rest follows the last ")".
      const ppid = stat === null ? NaN : Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!Number.isInteger(ppid)) return;
      const siblings = parents.get(ppid);
      if (siblings) siblings.push(Number(entry));
      else parents.set(ppid, [Number(entry)]);
    }),
  );
  const tree: number[] = [];
  for (let queue = [root]; queue.length > 0;) {
    const pid = queue.pop()!;
    tree.push(pid);
    queue = queue.concat(parents.get(pid) ?? []);
  }
  const seen = new Map<string, number>();
  await Promise.all(
    tree.map(async (pid) => {
      const fds = await fsp.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
      for (const fd of fds) {
        const target = await fsp.readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
        if (!target.endsWith(" (deleted)")) continue;
        // stat through the descriptor's link reaches the open file, deleted or not.
        const file = await fsp.stat(`/proc/${pid}/fd/${fd}`).catch(() => null);
        if (file?.isFile()) seen.set(`${file.dev}:${file.ino}`, file.blocks * 512);
      }
      await deletedMappings(pid, seen);
    }),
  );
  let bytes = 0;
  for (const size of seen.values()) bytes += size;
  return bytes;
}

export interface DiskWatch {
  /** What is measured, for the reason: "the job", "the inventory listing". */
  subject: string;
  /** The folder measured (a job's or an inventory listing's, with its private /tmp). */
  folder: string;
  /** The limit, in bytes: RTE_JOB_DISK_LIMIT, or what `setting` names. */
  limit: number;
  /** The setting the limit is, named in the reason; RTE_JOB_DISK_LIMIT unless said. */
  setting?: string;
  /**
   * Bytes the folder held when what is measured began (diskTaken), not counted: a requirements
   * install is measured by what it adds to its job's folder, not by the form's files.
   */
  baseline?: number;
  /** RTE_JOB_DISK_CHECK_SECONDS. */
  intervalSeconds: number;
  /** The process group leader of what runs (see deletedFilesHeld); its tree's deleted open files count. */
  processRoot?: () => number | undefined;
  /** Bytes of what it took besides the folder (a job's stored output); none: 0. */
  outputBytes?: () => number;
  /** Called once, when the folder plus the output is over the limit, with the reason to give. */
  exceeded: (reason: string) => void;
  /** A check that failed (du missing, say): reported, the watch goes on. */
  failed?: (error: unknown) => void;
}

/** One measure of what `watch` counts: its total, what took it (for the reason), and the folders still closed to the RTE. */
async function measure(watch: Omit<DiskWatch, "exceeded">): Promise<{ total: number; parts: string[]; closed: number }> {
  const root = watch.processRoot?.();
  const [folder, deleted, perInode] = await Promise.all([
    measurableFolderUsage(watch.folder),
    root === undefined ? 0 : deletedFilesHeld(root),
    bytesPerInode(watch.folder),
  ]);
  const output = watch.outputBytes?.() ?? 0;
  // The folder takes its bytes, or the share of the disk its inodes stand for if that is more.
  const inodeBytes = folder.inodes * perInode;
  const baseline = watch.baseline ?? 0;
  const folderBytes = Math.max(0, Math.max(folder.bytes, inodeBytes) - baseline);
  const where = baseline > 0 ? `what it added to the job's folder and /tmp` : `its folder and /tmp`;
  const parts = [
    inodeBytes > folder.bytes
      ? `${where} ${formatBytes(folderBytes)} in ${folder.inodes.toLocaleString("en")} files and folders, whose inodes are those of ${formatBytes(inodeBytes)} of this disk`
      : `${where} ${formatBytes(folderBytes)}`,
    ...(deleted > 0 ? [`deleted files it holds open or mapped ${formatBytes(deleted)}`] : []),
    ...(watch.outputBytes ? [`its output ${formatBytes(output)}`] : []),
  ];
  return { total: folderBytes + deleted + output, parts, closed: folder.closed };
}

/** The disk `folder` takes as a watch counts it (a DiskWatch's baseline). */
export async function diskTaken(folder: string): Promise<number> {
  const [usage, perInode] = await Promise.all([measurableFolderUsage(folder), bytesPerInode(folder)]);
  return Math.max(usage.bytes, usage.inodes * perInode);
}

function overLimitReason(watch: Omit<DiskWatch, "exceeded">, total: number, parts: readonly string[]): string {
  return `${watch.subject} used more than ${watch.setting ?? "RTE_JOB_DISK_LIMIT"} (${formatBytes(watch.limit)}) of the runner's disk: ${formatBytes(total)} (${parts.join(", ")})`;
}

/**
 * One check of `watch` (what watchDisk does every interval): the reason when it is over the
 * limit, else null. For the end of what was watched, whose last seconds no interval saw.
 */
export async function checkDisk(watch: Omit<DiskWatch, "exceeded">): Promise<string | null> {
  const { total, parts } = await measure(watch);
  return total > watch.limit ? overLimitReason(watch, total, parts) : null;
}

/**
 * Measures the folder every intervalSeconds until stopped or over the limit. Returns the stop.
 * The reason names the setting, the limit and what took the disk, for the job's end and output.
 */
export function watchDisk(watch: DiskWatch): () => void {
  let stopped = false;
  let closedChecks = 0;
  const check = async () => {
    while (!stopped) {
      await sleep(watch.intervalSeconds * 1000);
      if (stopped) return;
      const { total, parts, closed } = await measure(watch);
      // A folder still closed after the RTE opened it: closed again at once, a playbook hiding
      // what it writes from this check. Twice in a row (once could be a folder made 000 for a
      // moment) is the job's end, as being over the limit is: what it holds is not known.
      closedChecks = closed > 0 ? closedChecks + 1 : 0;
      if (closedChecks >= 2 && !stopped) {
        stopped = true;
        watch.exceeded(
          `${watch.subject} keeps ${closed} folder(s) of its folder closed to the runner's disk check (${watch.setting ?? "RTE_JOB_DISK_LIMIT"} ${formatBytes(watch.limit)}): they were opened again and closed again, so what they hold cannot be measured`,
        );
        return;
      }
      if (stopped || total <= watch.limit) continue;
      stopped = true;
      watch.exceeded(overLimitReason(watch, total, parts));
    }
  };
  void check().catch((error: unknown) => watch.failed?.(error));
  return () => {
    stopped = true;
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
