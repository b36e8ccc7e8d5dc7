/**
 * The RTE's lock file: refused while a living RTE holds it, taken over from a dead one, and
 * never mistaken for a live holder because its pid was reused.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { hostname } from "node:os";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LockHeldError, STALE_MS, acquireLock, type LockHolder } from "../../server/rte/instance-lock";
import { bootId, processInfo } from "../../server/rte/process-group";

let dir: string;
let file: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-lock-"));
  file = path.join(dir, "rte.lock");
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

function sleeper(): ChildProcess {
  const child = spawn("sleep", ["30"], { stdio: "ignore" });
  children.push(child);
  return child;
}

function holder(overrides: Partial<LockHolder>): LockHolder {
  return {
    pid: 1,
    startTime: null,
    bootId: bootId(),
    hostname: hostname(),
    instanceId: "other-0",
    since: "2024-01-01T00:00:00Z",
    ...overrides,
  };
}

function writeLock(h: LockHolder): void {
  fs.writeFileSync(file, JSON.stringify(h) + "\n");
}

describe("acquireLock", () => {
  it("creates the lock 0600 naming this process, and release removes it", () => {
    const lock = acquireLock(file, "rte-0");
    const written = JSON.parse(fs.readFileSync(file, "utf8")) as LockHolder;
    expect(written).toMatchObject({ pid: process.pid, instanceId: "rte-0", hostname: hostname() });
    expect(written.startTime).toBe(processInfo(process.pid)!.startTime);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(lock.tookOver).toBeNull();
    lock.release();
    expect(fs.existsSync(file)).toBe(false);
  });

  it("refuses while a living process holds it, naming it", () => {
    const other = sleeper();
    writeLock(holder({ pid: other.pid!, startTime: processInfo(other.pid!)!.startTime }));
    expect(() => acquireLock(file, "rte-0")).toThrow(LockHeldError);
    expect(() => acquireLock(file, "rte-0")).toThrow(new RegExp(`another RTE \\(instance other-0, pid ${other.pid} .*refusing to start`));
    // Left as it was.
    expect((JSON.parse(fs.readFileSync(file, "utf8")) as LockHolder).pid).toBe(other.pid);
  });

  it("takes over the lock of a process that is gone", async () => {
    const gone = spawn("true");
    await new Promise((resolve) => gone.once("exit", resolve));
    writeLock(holder({ pid: gone.pid!, startTime: "1" }));
    const lock = acquireLock(file, "rte-0");
    expect(lock.tookOver?.pid).toBe(gone.pid);
    expect((JSON.parse(fs.readFileSync(file, "utf8")) as LockHolder).pid).toBe(process.pid);
    lock.release();
  });

  it("takes over when the pid lives but is another process (pid reused: another start time)", () => {
    const other = sleeper();
    writeLock(holder({ pid: other.pid!, startTime: "12345" }));
    const lock = acquireLock(file, "rte-0");
    expect(lock.tookOver?.pid).toBe(other.pid);
    lock.release();
  });

  it("takes over a lock naming this very pid (a container restarted: the same pid, a new process)", () => {
    writeLock(holder({ pid: process.pid, startTime: "1" }));
    expect(acquireLock(file, "rte-0").tookOver?.pid).toBe(process.pid);
  });

  it("takes over a lock from before a reboot", () => {
    const other = sleeper();
    writeLock(holder({ pid: other.pid!, startTime: processInfo(other.pid!)!.startTime, bootId: "another-boot" }));
    expect(acquireLock(file, "rte-0").tookOver?.pid).toBe(other.pid);
  });

  it("from another host: refuses while the holder keeps the lock fresh, takes it over once stale", () => {
    writeLock(holder({ pid: 4242, hostname: "some-other-host" }));
    expect(() => acquireLock(file, "rte-0")).toThrow(/on some-other-host.*lock refreshed \d+s ago/);
    const old = new Date(Date.now() - STALE_MS - 1_000);
    fs.utimesSync(file, old, old);
    expect(acquireLock(file, "rte-0").tookOver?.hostname).toBe("some-other-host");
  });

  it("release leaves a lock that is not ours any more alone", () => {
    const lock = acquireLock(file, "rte-0");
    writeLock(holder({ pid: 99999 }));
    lock.release();
    expect(fs.existsSync(file)).toBe(true);
  });
});
