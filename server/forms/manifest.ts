/**
 * The files a job needs, by content hash. Everything in the form's folder goes (roles,
 * group_vars, templates), except hidden files and the form definition itself.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ManifestEntry } from "../protocol/rte-messages";

const MAX_FILES = 2_000;

export function buildManifest(dir: string): ManifestEntry[] {
  const entries: ManifestEntry[] = [];
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const rel = path.relative(dir, full).split(path.sep).join("/");
        if (rel === "form.yaml") continue;
        const content = fs.readFileSync(full);
        entries.push({ path: rel, sha256: createHash("sha256").update(content).digest("hex"), size: content.length });
        if (entries.length > MAX_FILES) throw new Error(`form folder ${dir} has more than ${MAX_FILES} files`);
      }
    }
  };
  walk(dir);
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}
