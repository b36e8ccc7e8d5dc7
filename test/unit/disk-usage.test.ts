import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { bytesPerInode, deletedFilesHeld, folderUsage, formatBytes, parseByteSize } from "../../server/rte/disk-usage";
import { loadRteEnv } from "../../server/rte/env";

describe("parseByteSize", () => {
  it("reads IEC and SI units, any case, with or without a space", () => {
    expect(parseByteSize("10GiB")).toBe(10 * 1024 ** 3);
    expect(parseByteSize("500 MiB")).toBe(500 * 1024 ** 2);
    expect(parseByteSize("1.5Ti")).toBe(1.5 * 1024 ** 4);
    expect(parseByteSize("20GB")).toBe(20 * 1000 ** 3);
    expect(parseByteSize("64k")).toBe(64_000);
    expect(parseByteSize("1048576")).toBe(1048576);
    expect(parseByteSize("8mib")).toBe(8 * 1024 ** 2);
  });
  it("refuses what is not a size", () => {
    for (const text of ["", "ten", "10 GiBs", "-1G", "10 G B", "1e9", "99999999999999TiB"]) expect(parseByteSize(text), text).toBeNull();
  });
  it("formats for messages", () => {
    expect(formatBytes(10 * 1024 ** 3)).toBe("10 GiB");
    expect(formatBytes(718)).toBe("718 bytes");
    expect(formatBytes(10.1 * 1024 ** 2)).toBe("10.1 MiB");
  });
});

describe("RTE_JOB_DISK_LIMIT", () => {
  it("defaults to 10 GiB and names the variable when it is not a size", () => {
    expect(loadRteEnv({}).RTE_JOB_DISK_LIMIT).toBe(10 * 1024 ** 3);
    expect(loadRteEnv({ RTE_JOB_DISK_LIMIT: "2GiB" }).RTE_JOB_DISK_LIMIT).toBe(2 * 1024 ** 3);
    expect(() => loadRteEnv({ RTE_JOB_DISK_LIMIT: "lots" })).toThrow(/RTE_JOB_DISK_LIMIT: "lots" is not a size of at least 1 MiB/);
    expect(() => loadRteEnv({ RTE_JOB_DISK_LIMIT: "100k" })).toThrow(/RTE_JOB_DISK_LIMIT/);
    expect(() => loadRteEnv({ RTE_PLAYBOOK_PRIVATE_TMP: "yes" })).toThrow(/RTE_PLAYBOOK_PRIVATE_TMP: must be on or off/);
  });
});

describe("folderUsage", () => {
  let dir = "";
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("counts the blocks files take, each inode once, without following links out of the folder", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-usage-"));
    const empty = (await folderUsage(dir)).bytes;
    fs.mkdirSync(path.join(dir, "a/b"), { recursive: true });
    fs.writeFileSync(path.join(dir, "a/b/data"), Buffer.alloc(2 * 1024 * 1024, 1));
    // A hard link to the same data, and a symbolic link to a large file outside: neither adds.
    fs.linkSync(path.join(dir, "a/b/data"), path.join(dir, "a/again"));
    fs.symlinkSync("/dev/zero", path.join(dir, "zero"));
    // A sparse file of a gigabyte holds nothing on disk.
    const sparse = fs.openSync(path.join(dir, "sparse"), "w");
    fs.ftruncateSync(sparse, 1024 ** 3);
    fs.closeSync(sparse);
    const usage = await folderUsage(dir);
    expect(usage.unreadable).toBe(0);
    expect(usage.bytes - empty).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(usage.bytes - empty).toBeLessThan(2 * 1024 * 1024 + 64 * 1024);
  });

  it("answers nothing for a folder that is gone", async () => {
    expect(await folderUsage("/nonexistent/playform")).toEqual({ bytes: 0, inodes: 0, unreadable: 1, closed: 0 });
  });

  it("counts the inodes files and folders take, each hard-linked file once", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-usage-"));
    fs.mkdirSync(path.join(dir, "many"));
    for (let i = 0; i < 500; i++) fs.writeFileSync(path.join(dir, "many", String(i)), "");
    fs.linkSync(path.join(dir, "many/0"), path.join(dir, "link"));
    // The folder itself, "many" and its 500 empty files; the hard link adds nothing.
    expect((await folderUsage(dir)).inodes).toBe(502);
  });

  it("knows what an inode stands for on this disk (ext4: one per 16 KiB by default)", async () => {
    const perInode = await bytesPerInode(os.tmpdir());
    const stats = fs.statfsSync(os.tmpdir());
    if (stats.files > 0 && stats.files < stats.blocks) expect(perInode).toBe(Math.floor((stats.blocks * stats.bsize) / stats.files));
    else expect(perInode).toBe(0);
    expect(await bytesPerInode("/nonexistent/playform")).toBe(0);
  });
});

describe("deletedFilesHeld", () => {
  it("counts a deleted file held open by a descendant of the root, once, and nothing of another tree", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-deleted-"));
    // A shell whose child (a process tree, as a playbook's) holds 3 MiB it has unlinked, twice
    // (two descriptors of one file count once), and tells when it is ready.
    const file = path.join(dir, "held");
    const script = `sh -c 'exec 3>"${file}" 4<"${file}"; head -c 3145728 /dev/zero >&3; rm "${file}"; echo ready; sleep 30' & wait`;
    const root = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "inherit"], detached: true });
    const sibling = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await new Promise<void>((resolve) => root.stdout.once("data", () => resolve()));
      const bytes = await deletedFilesHeld(root.pid!);
      expect(bytes).toBeGreaterThanOrEqual(3 * 1024 * 1024);
      expect(bytes).toBeLessThan(4 * 1024 * 1024);
      // Another tree holds none of it.
      expect(await deletedFilesHeld(sibling.pid!)).toBe(0);
    } finally {
      process.kill(-root.pid!, "SIGKILL"); // its whole group: the shell, its child, the sleep
      root.stdout.destroy();
      sibling.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("deletedFilesHeld and mappings", () => {
  it("counts a deleted file a process keeps mapped with no descriptor left (/proc/PID/maps only)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-mapped-"));
    const file = path.join(dir, "mapped");
    // Python's mmap keeps a dup of the descriptor; libc's mmap through ctypes does not.
    const script = [
      "import ctypes, os, sys, time",
      "libc = ctypes.CDLL(None, use_errno=True)",
      "libc.mmap.restype = ctypes.c_void_p",
      "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]",
      `fd = os.open(${JSON.stringify(file)}, os.O_RDWR | os.O_CREAT, 0o600)`,
      "os.write(fd, b'x' * (4 << 20)); os.fsync(fd)",
      "addr = libc.mmap(None, 4 << 20, 3, 1, fd, 0)",
      "os.close(fd)",
      `os.unlink(${JSON.stringify(file)})`,
      "print('ready', flush=True)",
      "time.sleep(30)",
    ].join("\n");
    const holder = spawn("python3", ["-c", script], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
      expect(fs.readdirSync(`/proc/${holder.pid}/fd`).map((fd) => fs.readlinkSync(`/proc/${holder.pid}/fd/${fd}`))).not.toContain(
        `${file} (deleted)`,
      );
      const bytes = await deletedFilesHeld(holder.pid!);
      expect(bytes).toBeGreaterThanOrEqual(4 * 1024 * 1024);
      expect(bytes).toBeLessThan(5 * 1024 * 1024);
    } finally {
      holder.kill("SIGKILL");
      holder.stdout.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
