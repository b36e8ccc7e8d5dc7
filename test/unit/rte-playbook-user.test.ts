/**
 * The pieces of running playbooks as a user of their own: who may reach what (mode bits along
 * the path), the job folder handed over to the job's user and group, per-job groups, and the
 * jobs folder in a shared place that someone else may have created first.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { handOver } from "../../server/rte/job-folder";
import { blockedFor, jobGid, type PlaybookUser } from "../../server/rte/playbook-user";
import { ensureOwnedDir } from "../../server/rte/private-fs";

const root = process.getuid?.() === 0;
const OTHER_UID = 4242;
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-playbook-user-"));
  fs.chmodSync(dir, 0o755);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const mode = (file: string) => fs.statSync(file).mode & 0o7777;

describe("blockedFor", () => {
  it("names the first folder on the way that is closed to the user, or the target itself", () => {
    const inner = path.join(dir, "a", "b");
    fs.mkdirSync(inner, { recursive: true });
    const file = path.join(inner, "f");
    fs.writeFileSync(file, "x", { mode: 0o644 });
    expect(blockedFor(file, OTHER_UID, [], 4)).toBeNull();
    fs.chmodSync(path.join(dir, "a"), 0o700);
    expect(blockedFor(file, OTHER_UID, [], 4)).toBe(path.join(dir, "a"));
    fs.chmodSync(path.join(dir, "a"), 0o711); // enter, not list: enough to pass through
    expect(blockedFor(file, OTHER_UID, [], 4)).toBeNull();
    expect(blockedFor(file, OTHER_UID, [], 5)).toBe(file); // not executable
    fs.chmodSync(file, 0o640);
    expect(blockedFor(file, OTHER_UID, [], 4)).toBe(file);
    expect(blockedFor(file, OTHER_UID, [fs.statSync(file).gid], 4)).toBeNull(); // through the group
    expect(blockedFor(file, fs.statSync(file).uid, [], 4)).toBeNull(); // the owner
  });
});

describe("jobGid", () => {
  const user: PlaybookUser = { name: "playform-run", uid: 999, primaryGid: 995, jobGroups: true };
  it("gives each job a group of its own, far above real groups, within int32", () => {
    expect(jobGid(user, 1)).toBe(2_000_000_001);
    expect(jobGid(user, 2)).not.toBe(jobGid(user, 1));
    expect(jobGid(user, 99_999_999)).toBeLessThan(2 ** 31);
  });
  it("falls back to the user's own group where per-job groups are not available", () => {
    expect(jobGid({ ...user, jobGroups: false }, 7)).toBe(995);
  });
});

describe.skipIf(!root)("handOver (as root)", () => {
  it("leaves the folders the RTE's, open to the job's group only, and gives the files to the job's user", () => {
    const job = path.join(dir, "17");
    fs.mkdirSync(path.join(job, "roles", "x"), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(job, "playbook.yml"), "-", { mode: 0o600 });
    fs.writeFileSync(path.join(job, "roles", "x", "main.yml"), "-", { mode: 0o600 });
    handOver(job, { uid: OTHER_UID, gid: 2_000_000_017 });
    for (const folder of [job, path.join(job, "roles"), path.join(job, "roles", "x")]) {
      expect([fs.statSync(folder).uid, fs.statSync(folder).gid, mode(folder)]).toEqual([0, 2_000_000_017, 0o770]);
    }
    for (const file of [path.join(job, "playbook.yml"), path.join(job, "roles", "x", "main.yml")]) {
      expect([fs.statSync(file).uid, fs.statSync(file).gid, mode(file)]).toEqual([OTHER_UID, 2_000_000_017, 0o600]);
    }
  });
});

describe("ensureOwnedDir", () => {
  it("creates the folder with the mode, and tightens or loosens an existing one to it", () => {
    const target = path.join(dir, "jobs");
    ensureOwnedDir(target, 0o711);
    expect(mode(target)).toBe(0o711);
    fs.chmodSync(target, 0o777);
    ensureOwnedDir(target, 0o711);
    expect(mode(target)).toBe(0o711);
  });

  it("refuses a symbolic link in its place (someone could point it at a folder they read)", () => {
    fs.mkdirSync(path.join(dir, "elsewhere"));
    fs.symlinkSync(path.join(dir, "elsewhere"), path.join(dir, "jobs"));
    expect(() => ensureOwnedDir(path.join(dir, "jobs"), 0o711)).toThrow(/is a symbolic link: refusing/);
  });

  it.skipIf(!root)("refuses a folder another user created first", () => {
    fs.mkdirSync(path.join(dir, "jobs"));
    fs.chownSync(path.join(dir, "jobs"), OTHER_UID, OTHER_UID);
    expect(() => ensureOwnedDir(path.join(dir, "jobs"), 0o711)).toThrow(new RegExp(`owned by uid ${OTHER_UID}: refusing`));
  });
});
