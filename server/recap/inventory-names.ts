/**
 * The host and group names in `ansible-inventory --list` JSON. Pure: the RTE reads an inventory
 * and sends the app only these names (never the hosts' variables, which may hold secrets); the
 * app turns them into a hosts field's choices (server/forms/host-choices.ts).
 */

/** Hosts and groups of one inventory, each sorted. */
export interface InventoryNames {
  hosts: string[];
  groups: string[];
}

/** Groups every inventory has: choosing them says nothing. */
const IMPLICIT_GROUPS = new Set(["all", "ungrouped"]);

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * Every host (in a group's `hosts` or with variables in `_meta.hostvars`) and every group but
 * all and ungrouped (those that hold only children, or nothing, are named in a parent's `children`).
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
