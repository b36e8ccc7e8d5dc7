/**
 * `inventory:list`: the hosts and groups of a form's inventory, for its hosts fields. The app
 * never runs ansible-inventory: an inventory script or plugin is code of the form (from a Git
 * source, say), so it runs here, where playbooks run, exactly the way a playbook does: in a
 * private folder of the form's files (fetched by hash like a job's), as the playbook user, with
 * the playbook's environment (playbookEnv: an allow list, none of the RTE's or the app's
 * variables), through the same wrapper (wrapPlaybook: playbook-init.py and, where bubblewrap
 * works, a pid namespace of its own), with a timeout. Everything it started ends with it: under
 * bwrap the namespace is killed (PID 1 with it), so even a child that left the process group
 * (setsid) is gone, and it could never see or signal a running job's processes by their pids;
 * without bwrap (RTE_SANDBOX=none, or none here) its process group is ended. Only the
 * names go back to the app, never the hosts' variables.
 *
 * The form's requirements.yml and requirements.txt (beside its playbook, as a job finds them) are
 * used where they are installed, as for its jobs and read-only: the cache entry of its
 * requirements.yml comes first on the collections and roles paths (an inventory plugin of a
 * collection it names), and with its requirements.txt's virtual environment, ansible-inventory is
 * run by the venv's python with the venv's bin first on PATH (an inventory plugin of the form
 * importing a package it names). A listing never installs them: any viewer of a form starts one, it has a
 * minute, and an install runs the form's code for minutes. Not installed yet, the listing runs
 * without them, and if it then fails, its error says so (the form's first job installs them).
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { execa } from "execa";
import type { InventoryAnswer, InventoryList } from "../protocol/rte-messages";
import { inventoryNames } from "../recap/inventory-names";
import { playbookInitScript } from "./ansible/plugin-path";
import type { RteEnv } from "./env";
import type { FetchFiles, FileCache } from "./file-cache";
import { handOver } from "./job-folder";
import type { RteEnvironment } from "./environments";
import { environmentEnv, environmentFolders, environmentProgram, playbookEnv } from "./playbook-command";
import type { PlaybookUser } from "./playbook-user";
import { terminateGroup } from "./process-group";
import { removeTree, watchDisk } from "./disk-usage";
import { SHORT_KEY_LENGTH, findRequirementsFiles, manifestDigest, readJobRequirements } from "./requirements";
import type { CacheEntry, RequirementsCache } from "./requirements-cache";
import type { VenvDetails } from "./requirements-install";
import { findPipRequirementsFile, readPipRequirements } from "./requirements-pip";
import {
  STATUS_FD,
  ansibleStateInJob,
  preparePrivateTmp,
  privateTmpMountPoints,
  runnerFolders,
  ownUserAnsibleTmp,
  sandboxSupportFolders,
  wrapPlaybook,
  type PrivateTmp,
  type Sandboxed,
} from "./sandbox";

export const INVENTORY_TIMEOUT_MS = 60_000;
/** What is read of ansible-inventory's JSON: a listing larger than this is refused. */
const MAX_LIST_BYTES = 64 * 1024 * 1024;
/** What is kept of ansible-inventory's stderr (its last lines say why it failed). */
const MAX_ERROR_BYTES = 64 * 1024;
/**
 * Once ansible-inventory has exited: how long its process group has to end after SIGTERM
 * before SIGKILL. Under bwrap, bwrap and PID 1 ignore SIGTERM (see sandbox.ts) and whatever is
 * left in the namespace is killed with them by the SIGKILL: the listing is over, nothing to wait for.
 */
const GROUP_GRACE_MS = 2_000;
const SANDBOX_GRACE_MS = 100;
/** After the group ended: how long its pipes may stay open (a setsid child holding them, without bwrap). */
const PIPES_CLOSE_MS = 2_000;

export interface InventoryDeps {
  env: RteEnv;
  cache: FileCache;
  fetchFiles: FetchFiles;
  playbookUser: PlaybookUser | null;
  /** Whether playbooks, and so listings, run under bubblewrap, and with which /proc (sandbox.ts, detectSandbox). */
  sandboxed: Sandboxed;
  /**
   * The environment the request names (the form's): its ansible-inventory (the built-in default
   * one's is the one beside ANSIBLE_PLAYBOOK) and its collections, which inventory plugins use.
   */
  environment: RteEnvironment;
  /**
   * The installed requirements, and the environment's ansible-core and Python versions (their
   * keys', as a job computes them: JobDeps.requirements).
   */
  requirements?: { cache: RequirementsCache; ansibleCore: string | null; python?: string | null };
}

/** The form's installed requirements the listing uses (held until it ends), and why any are not used. */
interface ListingRequirements {
  /** The keys held (RequirementsCache.use): released when the listing ends, whatever happened. */
  held: string[];
  /** Its requirements.yml's entry. */
  installed: CacheEntry | null;
  /** Its requirements.txt's virtual environment. */
  venv: { entry: CacheEntry; details: VenvDetails } | null;
  /** Why a file's entry is not used (said first when the listing fails), one clause each. */
  unreadable: string[];
  /** The files not installed yet, with their keys. */
  notInstalled: string[];
}

/** Looks up (never installs) the entries a job of the form would use: see the header. */
function listingRequirements(request: InventoryList, dir: string, deps: InventoryDeps, found: ListingRequirements): void {
  if (request.playbook === undefined || !deps.requirements) return;
  const { manifest } = request;
  const { cache, ansibleCore, python } = deps.requirements;
  const has = (file: string) => manifest.some((entry) => entry.path === file);
  const digest = (written: string) => manifestDigest(manifest, written);
  const why = (error: unknown) => (error instanceof Error ? error.message : String(error));
  const use = (key: string, files: string): CacheEntry | null => {
    const entry = cache.use(key);
    if (entry) found.held.push(key);
    else found.notInstalled.push(`${files}, key ${key.slice(0, SHORT_KEY_LENGTH)}`);
    return entry;
  };

  const files = findRequirementsFiles(request.playbook, has);
  if (files.length > 0) {
    try {
      const { key } = readJobRequirements(
        dir,
        files,
        {
          environment: deps.environment.name,
          ansible: ansibleCore ?? environmentProgram(deps.environment, "ansible-galaxy"),
          galaxyServer: deps.env.RTE_GALAXY_SERVER ?? null,
        },
        digest,
      );
      found.installed = use(key, files.join(", "));
    } catch (error) {
      found.unreadable.push(`the form's ${files.join(", ")} cannot be read: ${why(error)}`);
    }
  }

  const pipFile = findPipRequirementsFile(request.playbook, has);
  if (pipFile !== null) {
    try {
      const { key } = readPipRequirements(
        dir,
        pipFile,
        {
          environment: deps.environment.name,
          ansible: ansibleCore ?? environmentProgram(deps.environment, "ansible-playbook"),
          python: python ?? null,
          indexUrl: deps.env.RTE_PIP_INDEX_URL ?? null,
          findLinks: deps.env.RTE_PIP_FIND_LINKS ?? null,
        },
        digest,
      );
      const entry = use(key, pipFile);
      if (entry) {
        const { python: venvPython, ansiblePlaybook } = entry.details;
        if (typeof venvPython === "string" && typeof ansiblePlaybook === "string") {
          found.venv = { entry, details: { python: venvPython, ansiblePlaybook } };
        } else found.unreadable.push(`the cache entry ${entry.folder} records no ansible-playbook to run: remove it to install again`);
      }
    } catch (error) {
      found.unreadable.push(`the form's ${pipFile} cannot be read: ${why(error)}`);
    }
  }
}

/** What the listing's error says first when requirements of the form were not used. */
function missingRequirements(found: ListingRequirements): string {
  const clauses = [...found.unreadable];
  if (found.notInstalled.length > 0) {
    clauses.push(
      `the form's requirements (${found.notInstalled.join("; ")}) are not installed on this runner yet, ` +
        "and a listing does not install them: the form's first job does, list again after it",
    );
  }
  return clauses.map((clause) => `${clause}. `).join("");
}

export async function listInventory(request: InventoryList, deps: InventoryDeps): Promise<InventoryAnswer> {
  // A file of the form, or a folder of them (an inventory directory).
  const inventory = path.posix.normalize(request.inventory);
  if (
    inventory.startsWith("../") ||
    path.posix.isAbsolute(inventory) ||
    !request.manifest.some((e) => e.path === inventory || e.path.startsWith(`${inventory}/`))
  )
    return { ok: false, error: `${request.inventory} is not a file or folder of the form` };
  // In the jobs folder, which the RTE's start made (0711 when playbooks run as another user:
  // never tightened here, or the running jobs' folders would close to their playbooks).
  const dir = path.join(deps.env.jobsDir, `inventory-${randomBytes(6).toString("hex")}`);
  const requirements: ListingRequirements = { held: [], installed: null, venv: null, unreadable: [], notInstalled: [] };
  try {
    await deps.cache.materialize(request.manifest, dir, deps.fetchFiles);
    listingRequirements(request, dir, deps, requirements);
    const { installed, venv } = requirements;
    const entryFolders = [...(installed ? [installed.folder] : []), ...(venv ? [venv.entry.folder] : [])];
    const user = deps.playbookUser;
    // Its /tmp is its own as a playbook's: what an inventory plugin leaves there goes with the listing.
    const environment = deps.environment;
    const { privateTmp, tmpdir } = preparePrivateTmp(
      dir,
      deps.sandboxed,
      deps.env.RTE_PLAYBOOK_PRIVATE_TMP,
      [...sandboxSupportFolders(), ...environmentFolders(environment)],
      runnerFolders(deps.env),
      user ? { uid: user.uid, gid: user.primaryGid } : null,
    );
    if (privateTmp && !user) privateTmp.binds = ownUserAnsibleTmp(privateTmp);
    // Before the folder is handed over: made by the RTE, never where the form's files put a link.
    privateTmpMountPoints(privateTmp, entryFolders);
    if (user) handOver(dir, { uid: user.uid, gid: user.primaryGid });
    const identity: Record<string, string> = {
      ...(user
        ? { HOME: dir, USER: user.name, LOGNAME: user.name, ANSIBLE_LOCAL_TEMP: path.join(dir, ".ansible", "tmp") }
        : deps.sandboxed
          ? ansibleStateInJob(dir)
          : {}),
      TMPDIR: tmpdir,
    };
    const args = ["-i", path.join(dir, inventory), "--list"];
    // As a job runs ansible-playbook with a requirements.txt (job-run.ts): the environment's
    // script, the one beside the ansible-playbook recorded with the venv, run by the venv's
    // python, so ansible's own imports (an inventory plugin's) see the venv's packages.
    const listing = venv
      ? {
          file: path.join(venv.entry.venv, "bin", "python"),
          args: [path.join(path.dirname(venv.details.ansiblePlaybook), "ansible-inventory"), ...args],
        }
      : { file: environmentProgram(environment, "ansible-inventory"), args };
    const result = await runListing(listing, dir, deps, identity, privateTmp, installed, venv?.entry ?? null);
    if (result.diskExceeded !== null) return { ok: false, error: result.diskExceeded };
    if (result.tooLarge) return { ok: false, error: `ansible-inventory printed more than ${MAX_LIST_BYTES} bytes` };
    if (result.timedOut) return { ok: false, error: `ansible-inventory did not finish within ${INVENTORY_TIMEOUT_MS / 1000} s` };
    if (result.exitCode !== 0) {
      // ansible's last lines say why ("Failed to parse … with ini plugin: …", "No inventory was parsed").
      const output = [result.stderr, result.stdout].map((text) => text.trim()).find((text) => text !== "");
      const why = (output ?? result.problem ?? "it failed").split("\n").slice(-3).join(" ");
      // First: what it says must not be cut off by the length limit.
      return { ok: false, error: `${missingRequirements(requirements)}ansible-inventory cannot read it: ${why}`.slice(0, 2000) };
    }
    try {
      return { ok: true, ...inventoryNames(JSON.parse(result.stdout)) };
    } catch {
      return { ok: false, error: "ansible-inventory did not print JSON" };
    }
  } catch (error) {
    return {
      ok: false,
      error: `the runner could not read the inventory: ${error instanceof Error ? error.message : String(error)}`.slice(0, 2000),
    };
  } finally {
    for (const key of requirements.held) deps.requirements?.cache.release(key);
    await removeTree(dir).catch(() => undefined);
  }
}

interface ListingResult {
  /** ansible-inventory's exit status; null when it did not exit by itself (killed, or never started). */
  exitCode: number | null;
  timedOut: boolean;
  /** It printed more than MAX_LIST_BYTES: stopped. */
  tooLarge: boolean;
  /** Its folder (with its private /tmp) passed RTE_JOB_DISK_LIMIT: stopped, and why. */
  diskExceeded: string | null;
  stdout: string;
  stderr: string;
  /** Why it did not run at all (a missing program). */
  problem: string | null;
}

/**
 * Runs ansible-inventory as a playbook runs (see the header) and ends everything it started
 * once it has exited (or timed out): the process group, and under bwrap the pid namespace.
 */
async function runListing(
  listing: { file: string; args: string[] },
  dir: string,
  deps: InventoryDeps,
  identity: Record<string, string>,
  privateTmp: PrivateTmp | null,
  /** The form's installed requirements.yml: first on the paths, read-only (as for its jobs). */
  installed: CacheEntry | null,
  /** The form's installed requirements.txt: its venv's bin first on PATH, read-only (as for its jobs). */
  venv: CacheEntry | null,
): Promise<ListingResult> {
  const { sandboxed, playbookUser: user } = deps;
  const readOnly = [...(installed ? [installed.folder] : []), ...(venv ? [venv.folder] : [])];
  const command = wrapPlaybook(listing, playbookInitScript(), null, sandboxed, privateTmp, readOnly);
  const env = environmentEnv(
    playbookEnv(
      process.env,
      { ANSIBLE_INVENTORY_UNPARSED_FAILED: "true", ANSIBLE_NOCOLOR: "1", ANSIBLE_FORCE_COLOR: "0", ...identity },
      deps.env.RTE_PLAYBOOK_ENV_PASS,
    ),
    deps.environment,
    installed ? { collections: [installed.collections], roles: [installed.roles] } : null,
  );
  // As for its jobs: what a plugin runs by name (python3, a package's console script) is the venv's first.
  if (venv) env.PATH = [path.join(venv.venv, "bin"), env.PATH].filter(Boolean).join(":");
  const child = execa(command.file, command.args, {
    cwd: dir,
    env,
    extendEnv: false,
    ...(user ? { uid: user.uid, gid: user.primaryGid } : {}),
    detached: true,
    // fd 4: where PID 1 of the namespace says how ansible-inventory ended (under bwrap).
    stdio: ["ignore", "pipe", "pipe", "ignore", sandboxed ? "pipe" : "ignore"],
    buffer: false,
    reject: false,
    encoding: "buffer",
    forceKillAfterDelay: false,
  });
  const stdout: Buffer[] = [];
  let stdoutBytes = 0;
  let stderr = "";
  let tooLarge = false;
  let stopForSize: () => void = () => undefined;
  const sizeExceeded = new Promise<void>((resolve) => (stopForSize = resolve));
  child.stdout?.on("data", (chunk: Buffer) => {
    if (tooLarge) return;
    stdoutBytes += chunk.length;
    if (stdoutBytes > MAX_LIST_BYTES) {
      tooLarge = true;
      stdout.length = 0;
      stopForSize();
    } else stdout.push(chunk);
  });
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr = (stderr + text).slice(-MAX_ERROR_BYTES);
  });
  // Under bwrap the leader is bwrap, which lives as long as anything in the namespace: a
  // plugin's background child would keep it. ansible-inventory's own end comes from PID 1.
  let ended: number | null | undefined;
  const inventoryExited = new Promise<void>((resolve) => {
    const statusPipe = sandboxed ? child.stdio[STATUS_FD] : undefined;
    if (!statusPipe || !("setEncoding" in statusPipe)) return;
    let said = "";
    statusPipe.on("data", (chunk: Buffer) => {
      said += chunk.toString("utf8");
      const match = /^(exit|signal) (\d+)\n/.exec(said);
      if (!match) return;
      ended = match[1] === "exit" ? Number(match[2]) : null;
      resolve();
    });
  });
  const leaderExited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // A listing may take no more disk than a job: any user who can see the form starts one.
  let diskExceeded: string | null = null;
  let stopForDisk: () => void = () => undefined;
  const overDisk = new Promise<void>((resolve) => (stopForDisk = resolve));
  const stopWatching = watchDisk({
    subject: "the inventory listing",
    folder: dir,
    processRoot: () => child.pid,
    limit: deps.env.RTE_JOB_DISK_LIMIT,
    intervalSeconds: deps.env.RTE_JOB_DISK_CHECK_SECONDS,
    exceeded: (reason) => {
      diskExceeded = reason;
      stopForDisk();
    },
  });
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      timedOut = true;
      resolve();
    }, INVENTORY_TIMEOUT_MS);
  });
  // execa settles at once when the spawn itself fails (no exit event then).
  await Promise.race([inventoryExited, leaderExited, timeout, sizeExceeded, overDisk, child.then(() => undefined)]);
  clearTimeout(timer);
  stopWatching();
  // Whatever the inventory script or plugin left running ends with the listing.
  if (child.pid !== undefined) await terminateGroup(child.pid, sandboxed ? SANDBOX_GRACE_MS : GROUP_GRACE_MS).catch(() => undefined);
  let result = await Promise.race([child, sleep(PIPES_CLOSE_MS).then(() => null)]);
  if (result === null) {
    for (const stream of child.stdio) stream?.destroy();
    result = await child;
  }
  const spawnFailed = "code" in result && typeof result.code === "string" && result.code.startsWith("E");
  return {
    exitCode: ended !== undefined ? ended : typeof result.exitCode === "number" ? result.exitCode : null,
    timedOut,
    tooLarge,
    diskExceeded,
    stdout: Buffer.concat(stdout).toString("utf8"),
    stderr,
    problem: spawnFailed ? `${command.file} cannot be started: ${result.shortMessage}` : null,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
