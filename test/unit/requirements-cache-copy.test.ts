import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { endInstallLeftovers, installProcesses } from "../../server/rte/install-leftovers";
import { copyTree } from "../../server/rte/copy-tree";
import { RequirementsCache } from "../../server/rte/requirements-cache";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-cache-copy-"));
  temps.push(dir);
  return dir;
}

const KEY = "a".repeat(64);

/**
 * An install whose folder holds venv/lib/mod.py, with a descriptor opened on it (and one on its
 * folder) before the cache takes it: what a process left by the install holds. Then writes through them.
 */
async function installThenWrite(): Promise<{ entry: string; dir: string }> {
  const root = scratch();
  const cache = new RequirementsCache(path.join(root, "requirements"), 60_000);
  const produced = path.join(root, "job", ".playform_pip_requirements");
  let held: number | null = null;
  const entry = await cache.obtain(KEY, {
    say: () => undefined,
    cancelled: () => false,
    install: async () => {
      fs.mkdirSync(path.join(produced, "venv", "lib"), { recursive: true });
      fs.writeFileSync(path.join(produced, "venv", "lib", "mod.py"), 'MARK = "as-installed"\n');
      held = fs.openSync(path.join(produced, "venv", "lib", "mod.py"), "a");
      return produced;
    },
  });
  fs.writeSync(held!, 'MARK = "changed-after-sealing"\n');
  fs.closeSync(held!);
  return { entry: fs.readFileSync(path.join(entry.folder, "venv", "lib", "mod.py"), "utf8"), dir: entry.folder };
}

describe("RequirementsCache.obtain copies the install (new files, with or without the sandbox)", () => {
  it("takes new files into the entry: a descriptor held on the installed file does not change it", async () => {
    // A rename (what the cache did under the sandbox before attack 9) kept the inode: the write changed the entry.
    const copied = await installThenWrite();
    expect(copied.entry).toBe('MARK = "as-installed"\n');
  });

  it("leaves out a FIFO or socket of the install (seal would remove it; a copy would wait on it)", async () => {
    const root = scratch();
    const cache = new RequirementsCache(path.join(root, "requirements"), 60_000);
    const produced = path.join(root, "job", "out");
    const entry = await cache.obtain(KEY, {
      say: () => undefined,
      cancelled: () => false,
      install: async () => {
        fs.mkdirSync(path.join(produced, "collections"), { recursive: true });
        await execa("mkfifo", [path.join(produced, "collections", "fifo")]);
        fs.symlinkSync("collections", path.join(produced, "link"));
        return produced;
      },
    });
    expect(fs.readdirSync(path.join(entry.folder, "collections"))).toEqual([]);
    expect(fs.readlinkSync(path.join(entry.folder, "link"))).toBe("collections");
    expect(fs.existsSync(produced)).toBe(false);
  });
});

describe("RequirementsCache.obtain never writes through what the install left (attack 9)", () => {
  it("writes installed.json, collections and roles anew where the install left links", async () => {
    const root = scratch();
    const cache = new RequirementsCache(path.join(root, "requirements"), 60_000);
    const produced = path.join(root, "job", "out");
    const outside = path.join(root, "outside");
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, "file"), "untouched\n");
    const entry = await cache.obtain(KEY, {
      say: () => undefined,
      cancelled: () => false,
      install: async () => {
        fs.mkdirSync(produced, { recursive: true });
        fs.symlinkSync(path.join(outside, "file"), path.join(produced, "installed.json"));
        fs.symlinkSync(outside, path.join(produced, "collections"));
        fs.writeFileSync(path.join(produced, "roles"), "a file where a folder goes\n");
        return produced;
      },
    });
    expect(fs.readFileSync(path.join(outside, "file"), "utf8")).toBe("untouched\n");
    expect(fs.readdirSync(outside)).toEqual(["file"]);
    expect(fs.lstatSync(path.join(entry.folder, "installed.json")).isFile()).toBe(true);
    expect(fs.lstatSync(entry.collections).isDirectory()).toBe(true);
    expect(fs.lstatSync(entry.roles).isDirectory()).toBe(true);
  });

  it("refuses an install whose folder was swapped for a link, saying so", async () => {
    const root = scratch();
    const cache = new RequirementsCache(path.join(root, "requirements"), 60_000);
    const elsewhere = path.join(root, "elsewhere");
    fs.mkdirSync(path.join(elsewhere, "collections"), { recursive: true });
    const produced = path.join(root, "job", "out");
    const obtained = cache.obtain(KEY, {
      say: () => undefined,
      cancelled: () => false,
      install: async () => {
        fs.mkdirSync(path.dirname(produced), { recursive: true });
        fs.symlinkSync(elsewhere, produced);
        return produced;
      },
    });
    await expect(obtained).rejects.toThrow(/install left out as something other than a folder \(a link\?\): not taken into the cache/);
    expect(cache.lookUp(KEY)).toBeNull();
    expect(fs.readdirSync(path.join(root, "requirements")).filter((name) => name.startsWith(".staging-"))).toEqual([]);
  });
});

describe("copyTree", () => {
  it("copies files from their descriptors whole (past one read's chunk), with their exec bit and times; links as links; FIFOs left out", async () => {
    const root = scratch();
    const from = path.join(root, "from");
    fs.mkdirSync(path.join(from, "bin", "deep"), { recursive: true });
    const big = Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => (i * 31) % 251));
    fs.writeFileSync(path.join(from, "bin", "deep", "big.bin"), big);
    fs.writeFileSync(path.join(from, "bin", "tool"), "#!/bin/sh\n", { mode: 0o755 });
    fs.writeFileSync(path.join(from, "empty"), "");
    fs.utimesSync(path.join(from, "bin", "tool"), 1_000_000, 1_000_000);
    fs.symlinkSync("bin/tool", path.join(from, "link"));
    await execa("mkfifo", [path.join(from, "bin", "fifo")]);
    const to = path.join(root, "to");
    expect(await copyTree(from, to)).toEqual([]);
    expect(fs.readFileSync(path.join(to, "bin", "deep", "big.bin")).equals(big)).toBe(true);
    expect(fs.statSync(path.join(to, "bin", "tool")).mode & 0o111).not.toBe(0);
    expect(fs.statSync(path.join(to, "bin", "tool")).mtimeMs).toBe(1_000_000_000);
    expect(fs.readFileSync(path.join(to, "empty"), "utf8")).toBe("");
    expect(fs.readlinkSync(path.join(to, "link"))).toBe("bin/tool");
    expect(fs.readdirSync(path.join(to, "bin")).sort()).toEqual(["deep", "tool"]);
  });

  it("refuses a tree whose top is a link (the walk never starts through one)", async () => {
    const root = scratch();
    fs.mkdirSync(path.join(root, "real"));
    fs.symlinkSync("real", path.join(root, "from"));
    await expect(copyTree(path.join(root, "from"), path.join(root, "to"))).rejects.toThrow(/ELOOP|ENOTDIR/);
  });
});

describe("endInstallLeftovers", () => {
  it("ends a process of the install that left its group (by its run id, or its descriptors in the job folder)", async () => {
    const job = scratch();
    fs.writeFileSync(path.join(job, "held"), "");
    const runId = "f".repeat(32);
    const uid = process.getuid?.() ?? 0;
    // One marked with the run id, one without it (env -i) holding a file of the job open, each in a session of its own.
    const marked = execa("setsid", ["sleep", "60"], { env: { PLAYFORM_RUN_ID: runId }, extendEnv: false, cwd: "/", reject: false });
    const holding = execa("setsid", ["sh", "-c", `exec 3<"${job}/held"; exec sleep 60`], {
      env: {},
      extendEnv: false,
      cwd: "/",
      reject: false,
    });
    const other = execa("sleep", ["60"], { cwd: "/", reject: false });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const found = installProcesses(job, runId, uid);
    expect(found).toEqual(expect.arrayContaining([marked.pid, holding.pid]));
    expect(found).not.toContain(other.pid);
    expect(found).not.toContain(process.pid);
    expect(await endInstallLeftovers(job, runId, uid)).toBeGreaterThanOrEqual(2);
    expect((await marked).signal).toBe("SIGKILL");
    expect((await holding).signal).toBe("SIGKILL");
    expect(installProcesses(job, runId, uid)).toEqual([]);
    other.kill("SIGKILL");
    await other;
  });
});
