/**
 * Eviction of installed requirements (requirements-cache.ts): what no job has used for a while
 * goes, and when the cache outgrows its limit, the least recently used go first.
 *
 * Rules, in order:
 * 1. An entry whose last use (its folder's mtime, touched by every job that uses it) is older
 *    than the maximum age (RTE_REQUIREMENTS_MAX_AGE_DAYS) is removed.
 * 2. Then, with a size limit (RTE_REQUIREMENTS_MAX_BYTES), while the entries left take more than
 *    it, the one used least recently is removed.
 * 3. Never an entry a job uses or one being installed (RequirementsCache.takeOut says which):
 *    it is skipped, and a size limit is then met by removing the next one, or not met this time.
 *
 * Each pass first removes the leases of dead holders (RequirementsCache.sweep: of another
 * machine, one not renewed for an hour) and old failure records.
 *
 * The entry is renamed out of the cache at once (a job then finds no entry and installs again)
 * and its folder removed afterwards, off the event loop. Sizes come from du (folderUsage), in a
 * process of its own: a venv of thousands of files is not walked on the RTE's event loop.
 */
import path from "node:path";
import { folderUsage, formatBytes, removeTree } from "./disk-usage";
import type { RequirementsCache } from "./requirements-cache";

export interface EvictionPolicy {
  /** Entries unused for longer are removed; null: no age limit. */
  maxAgeMs: number | null;
  /** The most the entries may take together; null: no size limit. */
  maxBytes: number | null;
}

export interface Evicted {
  key: string;
  lastUse: Date;
  /** Its size, when a size limit made it measured. */
  bytes: number | null;
  why: "age" | "size";
}

export interface EvictionResult {
  removed: Evicted[];
  /** Entries that would have gone but were in use or being installed. */
  skipped: { key: string; why: string }[];
  /** What the entries left take, when measured (a size limit). */
  bytesLeft: number | null;
}

export interface EvictionDeps {
  now: () => Date;
  /** An entry folder's size in bytes (du by default). */
  measure?: (folder: string) => Promise<number>;
  /** Removes a taken-out folder (removeTree by default). */
  remove?: (folder: string) => Promise<void>;
}

/** One pass of eviction over `cache` (see the header). */
export async function evictRequirements(cache: RequirementsCache, policy: EvictionPolicy, deps: EvictionDeps): Promise<EvictionResult> {
  const measure = deps.measure ?? (async (folder: string) => (await folderUsage(folder)).bytes);
  const remove = deps.remove ?? removeTree;
  const result: EvictionResult = { removed: [], skipped: [], bytesLeft: null };
  const now = deps.now().getTime();
  // Leases of holders gone since (another machine's no longer renewed) would keep their entries for good.
  cache.sweep();
  const takeOut = async (entry: { key: string; lastUse: Date }, bytes: number | null, why: Evicted["why"]): Promise<boolean> => {
    const taken = cache.takeOut(entry.key);
    if ("busy" in taken) {
      if (taken.busy !== "gone") result.skipped.push({ key: entry.key, why: taken.busy });
      return taken.busy === "gone";
    }
    await remove(taken.trash);
    result.removed.push({ key: entry.key, lastUse: entry.lastUse, bytes, why });
    return true;
  };

  const left: { key: string; lastUse: Date }[] = [];
  for (const entry of cache.entries()) {
    const old = policy.maxAgeMs !== null && now - entry.lastUse.getTime() > policy.maxAgeMs;
    if (!(old && (await takeOut(entry, null, "age")))) left.push(entry);
  }
  if (policy.maxBytes === null) return result;

  const sized: { key: string; lastUse: Date; bytes: number }[] = [];
  for (const entry of left) sized.push({ ...entry, bytes: await measure(path.join(cache.dir, entry.key)) });
  let total = sized.reduce((sum, entry) => sum + entry.bytes, 0);
  sized.sort((a, b) => a.lastUse.getTime() - b.lastUse.getTime());
  for (const entry of sized) {
    if (total <= policy.maxBytes) break;
    if (await takeOut(entry, entry.bytes, "size")) total -= entry.bytes;
  }
  result.bytesLeft = total;
  return result;
}

/** The log lines of a pass: one per entry removed, and one for what a size limit could not remove. */
export function describeEviction(result: EvictionResult, policy: EvictionPolicy): string[] {
  const lines = result.removed.map((entry) => {
    const size = entry.bytes !== null ? `, ${formatBytes(entry.bytes)}` : "";
    const why = entry.why === "age" ? "unused for longer than the maximum age" : "the cache was over its size limit";
    return `requirements cache: removed ${entry.key.slice(0, 12)} (last used ${entry.lastUse.toISOString()}${size}): ${why}`;
  });
  for (const skipped of result.skipped) lines.push(`requirements cache: kept ${skipped.key.slice(0, 12)}, due for removal: ${skipped.why}`);
  if (policy.maxBytes !== null && result.bytesLeft !== null && result.bytesLeft > policy.maxBytes) {
    lines.push(
      `requirements cache: ${formatBytes(result.bytesLeft)} left, over its limit of ${formatBytes(policy.maxBytes)}: the rest is in use`,
    );
  }
  return lines;
}
