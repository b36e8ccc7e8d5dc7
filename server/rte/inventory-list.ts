/**
 * `inventory:list`: the hosts and groups of a form's inventory, for its hosts fields. The app
 * never runs ansible-inventory: an inventory script or plugin is code of the form (from a Git
 * source, say), so it runs here, where playbooks run, the way a playbook does: in a private
 * folder of the form's files (fetched by hash like a job's), as the playbook user, with the
 * playbook's environment (none of the RTE's or the app's variables), in a process group of its
 * own that ends with the listing, and with a timeout. Only the names go back to the app, never
 * the hosts' variables.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { execa } from "execa";
import type { InventoryAnswer, InventoryList } from "../protocol/rte-messages";
import { inventoryNames } from "../recap/inventory-names";
import type { RteEnv } from "./env";
import type { FetchFiles, FileCache } from "./file-cache";
import { handOver } from "./job-folder";
import { playbookEnv } from "./playbook-command";
import type { PlaybookUser } from "./playbook-user";
import { terminateGroup } from "./process-group";

export const INVENTORY_TIMEOUT_MS = 60_000;
/** What is read of ansible-inventory's JSON: a listing larger than this is refused. */
const MAX_LIST_BYTES = 64 * 1024 * 1024;

/** ansible-inventory from the same installation as ANSIBLE_PLAYBOOK (its folder when it is a path). */
export function ansibleInventoryCommand(ansiblePlaybook: string): string {
  return ansiblePlaybook.includes("/") ? path.join(path.dirname(ansiblePlaybook), "ansible-inventory") : "ansible-inventory";
}

export interface InventoryDeps {
  env: RteEnv;
  cache: FileCache;
  fetchFiles: FetchFiles;
  playbookUser: PlaybookUser | null;
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
  try {
    await deps.cache.materialize(request.manifest, dir, deps.fetchFiles);
    const user = deps.playbookUser;
    if (user) handOver(dir, { uid: user.uid, gid: user.primaryGid });
    const identity: Record<string, string> = user
      ? { HOME: dir, USER: user.name, LOGNAME: user.name, ANSIBLE_LOCAL_TEMP: path.join(dir, ".ansible", "tmp") }
      : {};
    const child = execa(ansibleInventoryCommand(deps.env.ANSIBLE_PLAYBOOK), ["-i", path.join(dir, inventory), "--list"], {
      cwd: dir,
      env: playbookEnv(
        process.env,
        { ANSIBLE_INVENTORY_UNPARSED_FAILED: "true", ANSIBLE_NOCOLOR: "1", ANSIBLE_FORCE_COLOR: "0", ...identity },
        deps.env.RTE_PLAYBOOK_ENV_PASS,
      ),
      extendEnv: false,
      ...(user ? { uid: user.uid, gid: user.primaryGid } : {}),
      detached: true,
      stdin: "ignore",
      reject: false,
      maxBuffer: MAX_LIST_BYTES,
      timeout: INVENTORY_TIMEOUT_MS,
      forceKillAfterDelay: 2_000,
    });
    const result = await child;
    // Whatever the script left running in its group ends with the listing.
    if (child.pid !== undefined) await terminateGroup(child.pid, 2_000).catch(() => undefined);
    if (result.timedOut) return { ok: false, error: `ansible-inventory did not finish within ${INVENTORY_TIMEOUT_MS / 1000} s` };
    if (result.failed) {
      // ansible's last lines say why ("Failed to parse … with ini plugin: …", "No inventory was parsed").
      const output = [result.stderr, result.stdout].map((text) => String(text ?? "").trim()).find((text) => text !== "");
      const why = (output ?? result.shortMessage ?? "it failed").split("\n").slice(-3).join(" ");
      return { ok: false, error: `ansible-inventory cannot read it: ${why}`.slice(0, 2000) };
    }
    try {
      return { ok: true, ...inventoryNames(JSON.parse(String(result.stdout))) };
    } catch {
      return { ok: false, error: "ansible-inventory did not print JSON" };
    }
  } catch (error) {
    return {
      ok: false,
      error: `the runner could not read the inventory: ${error instanceof Error ? error.message : String(error)}`.slice(0, 2000),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
