import { spawn } from "node:child_process";
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { autogroupNice, setAutogroupNice } from "../../server/rte/process-group";

// Some sandboxes (the CI machine's) turn autogroups on but do not let a process read its own
// /proc entry: the first test needs both.
const autogroups = (() => {
  try {
    return fs.readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() === "1";
  } catch {
    return false;
  }
})();
const ownAutogroupReadable = autogroupNice(process.pid) !== null;

const children: number[] = [];
afterEach(() => {
  for (const pid of children.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
});

/** A process leading a session of its own, as the RTE starts a playbook (detached). */
function sessionLeader(): number {
  const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  children.push(child.pid!);
  return child.pid!;
}

describe("setAutogroupNice", () => {
  it.runIf(autogroups && ownAutogroupReadable)("lowers the priority of the session's autogroup by N below the RTE's own", async () => {
    const pid = sessionLeader();
    const own = autogroupNice(process.pid)!;
    expect(autogroupNice(pid)).toBe(0);
    expect(await setAutogroupNice(pid, 7)).toBeNull();
    expect(autogroupNice(pid)).toBe(Math.min(19, own + 7));
    // The RTE's own session is not touched.
    expect(autogroupNice(process.pid)).toBe(own);
  });

  it("does nothing for 0 or a process that is gone", async () => {
    const pid = sessionLeader();
    expect(await setAutogroupNice(pid, 0)).toBeNull();
    if (autogroups) expect(autogroupNice(pid)).toBe(0);
    expect(await setAutogroupNice(2 ** 22 + 1, 5)).toBeNull();
  });
});
