import { access, constants } from "node:fs/promises";
import path from "node:path";

/** The executable's full path on PATH, or null. */
export async function findExecutable(name: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
