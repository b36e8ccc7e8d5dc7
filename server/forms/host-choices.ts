/**
 * The choices of `hosts` fields: the hosts and groups of the form's own inventory, read with
 * `ansible-inventory --list` on the app once per import (not per page view: it takes a second
 * and may run inventory plugins). They are stored with the form (server/data/forms.ts).
 */
import path from "node:path";
import { execa } from "execa";
import type { FieldOption } from "../form-rules/fields";
import type { FormDefinition } from "./definition";

/** A hosts field's choices, by field name. */
export type HostChoices = Record<string, FieldOption[]>;

/** Hosts and groups of one inventory, each sorted. */
export interface InventoryNames {
  hosts: string[];
  groups: string[];
}

const INVENTORY_TIMEOUT_MS = 60_000;
/** Groups every inventory has: choosing them says nothing. */
const IMPLICIT_GROUPS = new Set(["all", "ungrouped"]);

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * The names in `ansible-inventory --list` JSON: every host (in a group's `hosts` or with
 * variables in `_meta.hostvars`) and every group but all and ungrouped (those that hold only
 * children, or nothing, are named in a parent's `children`).
 */
export function inventoryNames(list: unknown): InventoryNames {
  const hosts = new Set<string>();
  const groups = new Set<string>();
  if (typeof list !== "object" || list === null || Array.isArray(list)) return { hosts: [], groups: [] };
  for (const [name, entry] of Object.entries(list as Record<string, unknown>)) {
    if (name === "_meta") {
      const hostvars = (entry as { hostvars?: unknown } | null)?.hostvars;
      if (typeof hostvars === "object" && hostvars !== null) for (const host of Object.keys(hostvars)) hosts.add(host);
      continue;
    }
    groups.add(name);
    if (typeof entry !== "object" || entry === null) continue;
    for (const host of stringsOf((entry as { hosts?: unknown }).hosts)) hosts.add(host);
    for (const child of stringsOf((entry as { children?: unknown }).children)) groups.add(child);
  }
  const sorted = (names: Set<string>) => [...names].sort((a, b) => a.localeCompare(b, "en"));
  return { hosts: sorted(hosts), groups: sorted(new Set([...groups].filter((g) => !IMPLICIT_GROUPS.has(g)))) };
}

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

/**
 * Runs `ansible-inventory -i INVENTORY --list` in the form's folder (no shell, a timeout). An
 * inventory it cannot parse is an error, not an empty list: ANSIBLE_INVENTORY_UNPARSED_FAILED.
 */
export async function listInventory(sourceDir: string, inventory: string): Promise<InventoryNames> {
  const result = await execa("ansible-inventory", ["-i", path.join(sourceDir, inventory), "--list"], {
    cwd: sourceDir,
    timeout: INVENTORY_TIMEOUT_MS,
    reject: false,
    stdin: "ignore",
    env: { ANSIBLE_INVENTORY_UNPARSED_FAILED: "true", ANSIBLE_NOCOLOR: "1", ANSIBLE_RETRY_FILES_ENABLED: "false" },
  });
  if (result.timedOut) throw new Error(`ansible-inventory did not finish within ${INVENTORY_TIMEOUT_MS / 1000} s`);
  if (result.failed) {
    // ansible's last lines say why ("Failed to parse … with ini plugin: …", "No inventory was parsed").
    const output = [result.stderr, result.stdout].map((text) => String(text ?? "").trim()).find((text) => text !== "");
    const why = (output ?? result.shortMessage ?? "it failed").split("\n").slice(-3).join(" ");
    throw new Error(`ansible-inventory cannot read it: ${why}`);
  }
  try {
    return inventoryNames(JSON.parse(result.stdout));
  } catch {
    throw new Error("ansible-inventory did not print JSON");
  }
}

/**
 * The choices of every hosts field of a form, each inventory read once. Throws an Error naming
 * the form and the inventory when one cannot be read: the import then skips the form.
 */
export async function readHostChoices(
  definition: FormDefinition,
  sourceDir: string,
  list: typeof listInventory = listInventory,
): Promise<HostChoices> {
  const choices: HostChoices = {};
  const read = new Map<string, Promise<InventoryNames>>();
  for (const field of definition.fields) {
    if (field.type !== "hosts") continue;
    const inventory = field.inventory ?? definition.inventories[0]!;
    if (!read.has(inventory)) read.set(inventory, list(sourceDir, inventory));
    try {
      choices[field.name] = hostFieldChoices(await read.get(inventory)!, field.pick);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`form "${definition.name}": inventory ${inventory} (for hosts field "${field.name}"): ${why}`, { cause: error });
    }
  }
  return choices;
}
