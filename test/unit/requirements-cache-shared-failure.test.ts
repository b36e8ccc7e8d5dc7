import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InstallCancelled, InstallFailedElsewhere, RequirementsCache, type ObtainOptions } from "../../server/rte/requirements-cache";

const KEY = "f".repeat(64);
const MESSAGE = "ansible-galaxy collection install failed (exit 1): ERROR! Failed to resolve the requested dependencies map";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Two runner processes' caches on one folder (RTE_REQUIREMENTS_DIR shared): each takes `<key>.lock` as a process does. */
function twoRunners(): { root: string; dir: string; first: RequirementsCache; second: RequirementsCache } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "playform-shared-failure-"));
  temps.push(root);
  const dir = path.join(root, "requirements");
  return { root, dir, first: new RequirementsCache(dir, 60_000), second: new RequirementsCache(dir, 60_000) };
}

/** A job's options: its output lines, and how many installs it ran (each an empty folder of its own). */
function job(root: string): { options: ObtainOptions; said: string[]; installs: () => number } {
  const said: string[] = [];
  let installs = 0;
  return {
    said,
    installs: () => installs,
    options: {
      say: (line) => said.push(line),
      cancelled: () => false,
      install: async () => {
        installs++;
        return fs.mkdtempSync(path.join(root, "job-"));
      },
    },
  };
}

/** The first runner's install, holding the lock until `end` (resolve, or reject with an error). */
async function installing(root: string, cache: RequirementsCache): Promise<{ obtained: Promise<unknown>; end: (error?: Error) => void }> {
  let end: (error?: Error) => void = () => undefined;
  const obtained = cache.obtain(KEY, {
    say: () => undefined,
    cancelled: () => false,
    install: () =>
      new Promise<string>((resolve, reject) => {
        end = (error) => (error ? reject(error) : resolve(fs.mkdtempSync(path.join(root, "job-"))));
      }),
  });
  obtained.catch(() => undefined);
  await until(() => fs.existsSync(path.join(cache.dir, `${KEY}.lock`)));
  return { obtained, end: (error) => end(error) };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(condition()).toBe(true);
}

describe("a failed install shared across runner processes on one folder", () => {
  it("a process that waited on another's failed install fails with its message and installs nothing; a later job installs", async () => {
    const { root, dir, first, second } = twoRunners();
    const firstInstall = await installing(root, first);
    // Two jobs of the second runner: one waits on the lock, the other on that job (in its process).
    const waiter = job(root);
    const sameProcess = job(root);
    const waited = second.obtain(KEY, waiter.options);
    const waitedInProcess = second.obtain(KEY, sameProcess.options);
    for (const promise of [waited, waitedInProcess]) promise.catch(() => undefined);
    await until(() => waiter.said.some((line) => line.includes("another runner process")));
    firstInstall.end(new Error(MESSAGE));
    await expect(firstInstall.obtained).rejects.toThrow(MESSAGE);
    for (const promise of [waited, waitedInProcess]) {
      await expect(promise).rejects.toThrow(InstallFailedElsewhere);
      await expect(promise).rejects.toThrow(MESSAGE);
    }
    expect(waiter.installs() + sameProcess.installs()).toBe(0);
    expect(waiter.said).toContain(
      `requirements: the install this job waited for (another runner process, pid ${process.pid} on ${os.hostname()}) failed (key ${KEY.slice(0, 12)})`,
    );
    // The record: whole, the RTE's only; no lock, no staging file left.
    const records = fs.readdirSync(dir).filter((name) => name.startsWith(`${KEY}.failed-`));
    expect(records).toHaveLength(1);
    const record = path.join(dir, records[0]!);
    expect(fs.statSync(record).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(record, "utf8"))).toMatchObject({
      attempt: records[0]!.slice(KEY.length + ".failed-".length),
      message: MESSAGE,
    });
    expect(fs.readdirSync(dir).filter((name) => name.endsWith(".lock") || name.startsWith(".staging-"))).toEqual([]);
    // A job that did not wait on that attempt tries again, in either process.
    const later = job(root);
    const entry = await second.obtain(KEY, later.options);
    expect(later.installs()).toBe(1);
    expect(entry.installed).toBe(true);
  });

  it("a cancelled install says nothing of the requirements: no record, and its waiter installs", async () => {
    const { root, dir, first, second } = twoRunners();
    const firstInstall = await installing(root, first);
    const waiter = job(root);
    const waited = second.obtain(KEY, waiter.options);
    await until(() => waiter.said.some((line) => line.includes("another runner process")));
    firstInstall.end(new InstallCancelled("the requirements install was cancelled"));
    await expect(firstInstall.obtained).rejects.toThrow(InstallCancelled);
    expect((await waited).installed).toBe(true);
    expect(waiter.installs()).toBe(1);
    expect(fs.readdirSync(dir).filter((name) => name.includes(".failed-"))).toEqual([]);
  });

  it("a succeeded install leaves no record; records older than 10 minutes are swept", async () => {
    const { root, dir, first, second } = twoRunners();
    const firstInstall = await installing(root, first);
    const waiter = job(root);
    const waited = second.obtain(KEY, waiter.options);
    await until(() => waiter.said.some((line) => line.includes("another runner process")));
    firstInstall.end();
    await firstInstall.obtained;
    expect((await waited).installed).toBe(false);
    expect(waiter.installs()).toBe(0);
    expect(fs.readdirSync(dir).filter((name) => name.includes(".failed-"))).toEqual([]);
    const old = path.join(dir, `${KEY}.failed-0123456789abcdef`);
    const fresh = path.join(dir, `${KEY}.failed-fedcba9876543210`);
    for (const file of [old, fresh]) fs.writeFileSync(file, "{}", { mode: 0o600 });
    const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
    fs.utimesSync(old, elevenMinutesAgo, elevenMinutesAgo);
    second.sweep();
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
  });
});
