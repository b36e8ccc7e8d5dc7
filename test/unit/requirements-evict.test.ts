import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LEASE_EXPIRY_MS, RequirementsCache } from "../../server/rte/requirements-cache";
import { describeEviction, evictRequirements, type EvictionPolicy } from "../../server/rte/requirements-evict";
import { loadRteEnv } from "../../server/rte/env";

const DAY = 24 * 3600 * 1000;
const NOW = new Date("2026-12-07T12:00:00Z");
const key = (c: string) => c.repeat(64);
const A = key("a");
const B = key("b");
const C = key("c");
const DEAD_PID = 2 ** 22 + 1;

const temps: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A cache with entries installed and released, each last used `daysAgo` before NOW. */
async function cacheWith(entries: Record<string, number>): Promise<{ root: string; dir: string; cache: RequirementsCache }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "playform-evict-unit-"));
  temps.push(root);
  const dir = path.join(root, "requirements");
  const cache = new RequirementsCache(dir, 60_000);
  for (const [k, daysAgo] of Object.entries(entries)) {
    await cache.obtain(k, {
      say: () => undefined,
      cancelled: () => false,
      install: async () => {
        const out = fs.mkdtempSync(path.join(root, "job-"));
        fs.mkdirSync(path.join(out, "collections"));
        return out;
      },
    });
    cache.release(k);
    const at = new Date(NOW.getTime() - daysAgo * DAY);
    fs.utimesSync(path.join(dir, k), at, at);
  }
  return { root, dir, cache };
}

const ageOnly: EvictionPolicy = { maxAgeMs: 30 * DAY, maxBytes: null };

describe("evictRequirements", () => {
  it("removes the entries unused for longer than the maximum age, and nothing else", async () => {
    const { dir, cache } = await cacheWith({ [A]: 31, [B]: 29, [C]: 400 });
    const result = await evictRequirements(cache, ageOnly, { now: () => NOW });
    expect(result.removed.map((r) => [r.key, r.why]).sort()).toEqual([
      [A, "age"],
      [C, "age"],
    ]);
    expect(fs.readdirSync(dir)).toEqual([B]);
    expect(describeEviction(result, ageOnly)).toContain(
      `requirements cache: removed ${A.slice(0, 12)} (last used 2026-11-06T12:00:00.000Z): unused for longer than the maximum age`,
    );
    // No age limit: nothing goes.
    const { cache: other } = await cacheWith({ [A]: 4000 });
    expect((await evictRequirements(other, { maxAgeMs: null, maxBytes: null }, { now: () => NOW })).removed).toEqual([]);
  });

  it("over the size limit, removes the least recently used first until the rest fits", async () => {
    const { dir, cache } = await cacheWith({ [A]: 3, [B]: 1, [C]: 2 });
    const sizes: Record<string, number> = { [A]: 400, [B]: 500, [C]: 300 };
    const policy = { maxAgeMs: 30 * DAY, maxBytes: 900 };
    const result = await evictRequirements(cache, policy, { now: () => NOW, measure: async (folder) => sizes[path.basename(folder)]! });
    // 1200 bytes: A (used 3 days ago) goes, leaving 800; C, older than B, stays since it now fits.
    expect(result.removed).toEqual([{ key: A, lastUse: new Date(NOW.getTime() - 3 * DAY), bytes: 400, why: "size" }]);
    expect(result.bytesLeft).toBe(800);
    expect(fs.readdirSync(dir).sort()).toEqual([B, C]);
    // Measured by du by default: an entry of a 64 KiB file is at least that.
    fs.writeFileSync(path.join(dir, B, "collections", "big"), Buffer.alloc(64 * 1024, 1));
    const real = await evictRequirements(cache, { maxAgeMs: null, maxBytes: 1 }, { now: () => NOW });
    expect(real.removed.map((r) => r.key)).toEqual([C, B]);
    expect(real.removed[1]!.bytes).toBeGreaterThanOrEqual(64 * 1024);
  });

  it("never removes an entry a job uses or one being installed, of this process or another", async () => {
    const { dir, cache } = await cacheWith({ [A]: 100, [B]: 100, [C]: 100 });
    // Another RTE's cache on the same folder (started before this one's job: a start removes leases naming its own pid).
    const other = new RequirementsCache(dir, 60_000);
    // A: used by a job of this process (obtained, not released yet).
    await cache.obtain(A, { say: () => undefined, cancelled: () => false, install: () => Promise.reject(new Error("cached")) });
    // ... for 100 days now (obtaining it touched it).
    const longAgo = new Date(NOW.getTime() - 100 * DAY);
    fs.utimesSync(path.join(dir, A), longAgo, longAgo);
    // B: used by a job of another living RTE on this machine (its lease), C being installed (a living holder's lock).
    fs.writeFileSync(path.join(dir, `${B}.use-${os.hostname()}-${process.ppid}`), "");
    fs.writeFileSync(path.join(dir, `${C}.lock`), JSON.stringify({ pid: process.ppid, host: os.hostname(), since: Date.now() }));
    for (const evicting of [cache, other]) {
      const result = await evictRequirements(evicting, ageOnly, { now: () => NOW });
      expect(result.removed).toEqual([]);
      expect(result.skipped.map((s) => [s.key, s.why]).sort()).toEqual([
        [A, "in use"],
        [B, "in use"],
        [C, "being installed"],
      ]);
    }
    // B was renamed out and back again: whole, and no trash left.
    expect(fs.readdirSync(path.join(dir, B)).sort()).toEqual(["collections", "installed.json", "roles"]);
    expect(fs.readdirSync(dir).filter((name) => name.startsWith(".trash-"))).toEqual([]);
    // Once the uses end (and the holder of B's lease is dead), they go.
    cache.release(A);
    fs.renameSync(path.join(dir, `${B}.use-${os.hostname()}-${process.ppid}`), path.join(dir, `${B}.use-${os.hostname()}-${DEAD_PID}`));
    fs.rmSync(path.join(dir, `${C}.lock`));
    const result = await evictRequirements(other, ageOnly, { now: () => NOW });
    expect(result.removed.map((r) => r.key).sort()).toEqual([A, B, C]);
    expect(fs.readdirSync(dir).filter((name) => !name.includes(".use-"))).toEqual([]);
    // A dead process's lease and trash are removed when an RTE starts, and a lease naming the
    // starting process itself (a restarted container's RTE with its predecessor's pid).
    fs.mkdirSync(path.join(dir, `.trash-${os.hostname()}-${DEAD_PID}-abcd`));
    fs.writeFileSync(path.join(dir, `${A}.use-${os.hostname()}-${process.pid}`), "");
    new RequirementsCache(dir, 60_000);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("an inventory listing's use of an entry holds it like a job's; a missing one is not held", async () => {
    const { dir, cache } = await cacheWith({ [A]: 100 });
    expect(cache.use(B)).toBeNull();
    expect(fs.readdirSync(dir).filter((name) => name.includes(".use-"))).toEqual([]);
    expect(cache.use(A)?.folder).toBe(path.join(dir, A));
    const longAgo = new Date(NOW.getTime() - 100 * DAY);
    fs.utimesSync(path.join(dir, A), longAgo, longAgo);
    expect((await evictRequirements(cache, ageOnly, { now: () => NOW })).skipped).toEqual([{ key: A, why: "in use" }]);
    cache.release(A);
    expect((await evictRequirements(cache, ageOnly, { now: () => NOW })).removed.map((r) => r.key)).toEqual([A]);
  });

  it("a lease of another machine holds its entry while renewed; one not renewed for an hour is dead and swept", async () => {
    const { dir, cache } = await cacheWith({ [A]: 100, [B]: 100 });
    const leaseA = path.join(dir, `${A}.use-another-machine-1234`);
    const leaseB = path.join(dir, `${B}.use-another-machine-1234`);
    // Its holder's clock sets the mtime, this machine's reads it: the bound is against now.
    const renewedAgo = (file: string, ms: number) => {
      const at = new Date(Date.now() - ms);
      fs.writeFileSync(file, "");
      fs.utimesSync(file, at, at);
    };
    renewedAgo(leaseA, 30 * 60_000);
    renewedAgo(leaseB, LEASE_EXPIRY_MS + 60_000);
    const result = await evictRequirements(cache, ageOnly, { now: () => NOW });
    expect(result.removed.map((r) => r.key)).toEqual([B]);
    expect(result.skipped).toEqual([{ key: A, why: "in use" }]);
    expect(fs.existsSync(leaseA)).toBe(true);
    expect(fs.existsSync(leaseB)).toBe(false);
    // The same lease, its holder gone for good: no longer renewed, it goes with its entry.
    renewedAgo(leaseA, 2 * LEASE_EXPIRY_MS);
    expect((await evictRequirements(cache, ageOnly, { now: () => NOW })).removed.map((r) => r.key)).toEqual([A]);
    expect(fs.readdirSync(dir)).toEqual([]);
    // A pass with no entry to remove sweeps such leases as well.
    renewedAgo(leaseB, LEASE_EXPIRY_MS + 60_000);
    await evictRequirements(cache, ageOnly, { now: () => NOW });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("a holder renews its lease files every 10 minutes while it holds them, with one timer, and makes a swept one again", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const { dir, cache } = await cacheWith({ [A]: 1, [B]: 1 });
    expect(vi.getTimerCount()).toBe(0);
    const held = async (k: string) =>
      cache.obtain(k, { say: () => undefined, cancelled: () => false, install: () => Promise.reject(new Error("cached")) });
    await held(A);
    await held(B);
    expect(vi.getTimerCount()).toBe(1);
    const leaseA = path.join(dir, `${A}.use-${os.hostname()}-${process.pid}`);
    const leaseB = path.join(dir, `${B}.use-${os.hostname()}-${process.pid}`);
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    for (const lease of [leaseA, leaseB]) fs.utimesSync(lease, twoHoursAgo, twoHoursAgo);
    vi.advanceTimersByTime(10 * 60_000 - 1);
    expect(Date.now() - fs.statSync(leaseA).mtimeMs).toBeGreaterThan(3600_000);
    vi.advanceTimersByTime(1);
    for (const lease of [leaseA, leaseB]) expect(Date.now() - fs.statSync(lease).mtimeMs).toBeLessThan(60_000);
    // Swept by a machine that took this one for dead (its renewals stalled): held again.
    fs.rmSync(leaseB);
    vi.advanceTimersByTime(10 * 60_000);
    expect(fs.existsSync(leaseB)).toBe(true);
    // No lease held, no timer.
    cache.release(A);
    expect(vi.getTimerCount()).toBe(1);
    cache.release(B);
    expect(vi.getTimerCount()).toBe(0);
    expect(fs.readdirSync(dir).filter((name) => name.includes(".use-"))).toEqual([]);
  });

  it("a job that obtains an entry after it was taken out installs it anew", async () => {
    const { root, dir, cache } = await cacheWith({ [A]: 100 });
    await evictRequirements(cache, ageOnly, { now: () => NOW });
    let installs = 0;
    const entry = await cache.obtain(A, {
      say: () => undefined,
      cancelled: () => false,
      install: async () => {
        installs++;
        return fs.mkdtempSync(path.join(root, "job-"));
      },
    });
    expect(installs).toBe(1);
    expect(entry.installed).toBe(true);
    expect(fs.existsSync(path.join(dir, A, "installed.json"))).toBe(true);
  });
});

describe("RTE_REQUIREMENTS_MAX_AGE_DAYS and RTE_REQUIREMENTS_MAX_BYTES", () => {
  it("default to 30 days and no size limit, and name the variable when wrong", () => {
    expect(loadRteEnv({})).toMatchObject({ RTE_REQUIREMENTS_MAX_AGE_DAYS: 30, RTE_REQUIREMENTS_MAX_BYTES: null });
    expect(loadRteEnv({ RTE_REQUIREMENTS_MAX_AGE_DAYS: "0.5", RTE_REQUIREMENTS_MAX_BYTES: "5GiB" })).toMatchObject({
      RTE_REQUIREMENTS_MAX_AGE_DAYS: 0.5,
      RTE_REQUIREMENTS_MAX_BYTES: 5 * 1024 ** 3,
    });
    expect(loadRteEnv({ RTE_REQUIREMENTS_MAX_BYTES: " " }).RTE_REQUIREMENTS_MAX_BYTES).toBeNull();
    expect(() => loadRteEnv({ RTE_REQUIREMENTS_MAX_BYTES: "lots" })).toThrow(/RTE_REQUIREMENTS_MAX_BYTES: "lots" is not a size/);
    expect(() => loadRteEnv({ RTE_REQUIREMENTS_MAX_AGE_DAYS: "-1" })).toThrow(/RTE_REQUIREMENTS_MAX_AGE_DAYS/);
  });
});
