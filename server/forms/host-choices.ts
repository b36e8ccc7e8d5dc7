/**
 * The choices of `hosts` fields: the hosts and groups of the form's own inventory. The app never
 * runs ansible-inventory: an inventory script or plugin is code of the form (a Git source's, say),
 * and on the app it would run beside ENCRYPTION_SECRET and DATABASE_URL (and the app's image has
 * no Ansible). A runner reads it instead, the form's (or the default), the way it runs a
 * playbook (`inventory:list`, server/rte/inventory-list.ts): the runner gets the form's files by
 * hash and answers only the names.
 *
 * The answer is cached on this node per form files (the hash of every file of the form's folder,
 * so per commit for a Git source, per content for the forms folder) and inventory: reading an
 * inventory takes a second and may call out to a cloud, and the same files name the same hosts.
 * Any user who may see a form triggers a listing (a page view, GET /api/forms/NAME), so listings
 * are rate-limited too: at most one is in flight per form files and inventory (every request
 * meanwhile waits for that one's answer), and a listing the runner answered with a failure is
 * not started again for FAILURE_RETRY_MS: until then the field's choicesError repeats the
 * failure and says when the next listing may start. ("No runner is connected" is not a listing:
 * asked again at once.)
 */
import { createHash } from "node:crypto";
import { resolveRunnerFor } from "../data/runners";
import type { FieldOption } from "../form-rules/fields";
import { loggerFor } from "../logging/logger";
import type { InventoryNames } from "../recap/inventory-names";
import { playformRuntime } from "../runtime";
import type { FormDefinition } from "./definition";
import { buildManifest } from "./manifest";

export { inventoryNames, type InventoryNames } from "../recap/inventory-names";

const log = loggerFor({ component: "forms" });

/** A hosts field's choices, by field name. */
export type HostChoices = Record<string, FieldOption[]>;

/** The runner reads within 60 s (server/rte/inventory-list.ts); the files travel first. */
const LIST_TIMEOUT_MS = 90_000;
/** Listings kept per node; the oldest go first. */
const CACHE_ENTRIES = 500;
/** After a listing failed on the runner: how long the failure is the answer, before the next listing may start. */
export const FAILURE_RETRY_MS = 30_000;

/** A hosts field's choices: hosts, groups, or groups then hosts (labelled "group: web" and "host: web1"). */
export function hostFieldChoices(names: InventoryNames, pick: "hosts" | "groups" | "both"): FieldOption[] {
  const plain = (name: string) => ({ value: name, label: name });
  if (pick === "hosts") return names.hosts.map(plain);
  if (pick === "groups") return names.groups.map(plain);
  return [
    ...names.groups.map((name) => ({ value: name, label: `group: ${name}` })),
    ...names.hosts.map((name) => ({ value: name, label: `host: ${name}` })),
  ];
}

interface Cache {
  done: Map<string, InventoryNames>;
  /** Listings the runner answered with a failure, and when. */
  failed: Map<string, { problem: string; at: number }>;
  pending: Map<string, Promise<{ names: InventoryNames } | { problem: string }>>;
}

// Route handlers and the custom server (a schedule's launch) are two bundles: one cache.
const KEY = Symbol.for("playform.inventory-cache");
function cache(): Cache {
  const holder = globalThis as typeof globalThis & { [KEY]?: Cache };
  holder[KEY] ??= { done: new Map(), failed: new Map(), pending: new Map() };
  return holder[KEY];
}

/** The hosts fields' choices, and for those that have none, why (no runner connected, the inventory does not parse). */
export interface HostChoicesState {
  choices: HostChoices;
  problems: Record<string, string>;
}

async function listOnRunner(
  form: { definition: FormDefinition; sourceDir: string },
  inventory: string,
  files: { manifest: ReturnType<typeof buildManifest>; key: string },
): Promise<{ names: InventoryNames } | { problem: string }> {
  const key = `${files.key}:${inventory}`;
  const state = cache();
  const done = state.done.get(key);
  if (done) return { names: done };
  const pending = state.pending.get(key);
  if (pending) return pending;
  const failed = state.failed.get(key);
  if (failed) {
    const age = Date.now() - failed.at;
    if (age < FAILURE_RETRY_MS) {
      const ago = Math.floor(age / 1000);
      const next = Math.ceil((FAILURE_RETRY_MS - age) / 1000);
      return {
        problem: `${failed.problem} (listed ${ago} s ago; rate-limited after a failure: the next listing may start in ${next} s)`,
      };
    }
    state.failed.delete(key);
  }
  const asking = (async (): Promise<{ names: InventoryNames } | { problem: string }> => {
    const runner = await resolveRunnerFor(form.definition.runner);
    if (!runner) {
      return {
        problem: form.definition.runner
          ? `runner "${form.definition.runner}" does not exist or is not approved, and reads the inventory`
          : "no default runner is approved yet to read the inventory",
      };
    }
    const answer = await playformRuntime().listInventory(
      runner.id,
      {
        sourceDir: form.sourceDir,
        manifest: files.manifest,
        inventory,
        environment: form.definition.environment,
        playbook: form.definition.playbook,
      },
      LIST_TIMEOUT_MS,
    );
    if (answer === null)
      return {
        problem: `runner "${runner.name}" is not connected (to this app node)${form.definition.environment ? ` with the environment ${form.definition.environment}` : ""} to read the inventory; try again once it is`,
      };
    if (!answer.ok) {
      state.failed.set(key, { problem: answer.error, at: Date.now() });
      if (state.failed.size > CACHE_ENTRIES) state.failed.delete(state.failed.keys().next().value!);
      return { problem: answer.error };
    }
    state.failed.delete(key);
    const names = { hosts: answer.hosts, groups: answer.groups };
    state.done.set(key, names);
    if (state.done.size > CACHE_ENTRIES) state.done.delete(state.done.keys().next().value!);
    return { names };
  })().finally(() => state.pending.delete(key));
  state.pending.set(key, asking);
  return asking;
}

/**
 * The choices of every hosts field of a form, each inventory listed once (by a runner, or from
 * this node's cache). Never throws for a listing that failed: the field's problem says why.
 */
export async function hostChoicesOf(form: { name?: string; definition: FormDefinition; sourceDir: string }): Promise<HostChoicesState> {
  const fields = form.definition.fields.filter((field) => field.type === "hosts");
  const state: HostChoicesState = { choices: {}, problems: {} };
  if (fields.length === 0) return state;
  let files: { manifest: ReturnType<typeof buildManifest>; key: string };
  try {
    const manifest = buildManifest(form.sourceDir);
    files = { manifest, key: createHash("sha256").update(JSON.stringify(manifest)).digest("hex") };
  } catch (error) {
    log().error({ err: error }, `form ${form.definition.name}: its files cannot be read to list its inventory`);
    for (const field of fields) state.problems[field.name] = "the form's files cannot be read on the app (see the server log)";
    return state;
  }
  const listings = new Map<string, Promise<{ names: InventoryNames } | { problem: string }>>();
  for (const field of fields) {
    const inventory = field.inventory ?? form.definition.inventories[0]!;
    if (!listings.has(inventory)) listings.set(inventory, listOnRunner(form, inventory, files));
    const listed = await listings.get(inventory)!;
    if ("names" in listed) state.choices[field.name] = hostFieldChoices(listed.names, field.pick);
    else state.problems[field.name] = `inventory ${inventory}: ${listed.problem}`;
  }
  return state;
}
