import { describe, expect, it } from "vitest";
import { explainChangedCount } from "@/components/recap/changed-count";
import type { Recap, RecapHostRow } from "@/server/recap/types";

const row = (host: string, changed: number): RecapHostRow => ({
  host,
  ok: changed,
  changed,
  unreachable: 0,
  failed: 0,
  skipped: 0,
  rescued: 0,
  ignored: 0,
});

function recap(hosts: RecapHostRow[], changed_tasks: string[], ignored_failures: string[] = []): Recap {
  return {
    plays: [{ number: 1, name: "p", hosts: null }],
    hosts,
    elapsed_sec: 3,
    slowest_tasks: [],
    changed_tasks,
    ignored_failures,
    failed_tasks: [],
    unreachable_hosts: [],
    status: "successful",
  };
}

// PLAY RECAP changed=4 while "Changed tasks" lists 3: the page must say why.
describe("explainChangedCount", () => {
  it("says nothing when the counts add up", () => {
    expect(explainChangedCount(recap([row("h", 3)], ["a", "b", "c"]))).toBeNull();
    expect(explainChangedCount(recap([], []))).toBeNull();
  });

  it("on one host, names the failed-but-ignored task when it is exactly the difference", () => {
    const note = explainChangedCount(recap([row("h", 4)], ["a", "b", "c"], ["boom"]));
    expect(note).not.toBeNull();
    expect(note!.exact).toBe(true);
    expect(note!.text).toBe("PLAY RECAP counts 4 changes: 3 tasks above + 1 failed-but-ignored task that reported changed.");
    expect(note!.ignored).toEqual(["boom"]);
    expect(note!.mark).toBe("failed, ignored (counted as changed by Ansible)");
  });

  it("on one host, does not claim a cause the numbers do not pin down", () => {
    const none = explainChangedCount(recap([row("h", 5)], ["a", "b", "c"]));
    expect(none!.exact).toBe(false);
    expect(none!.text).toContain("PLAY RECAP counts 5 changes, 3 tasks listed above");
    expect(none!.text).not.toContain("reported changed.");
    const some = explainChangedCount(recap([row("h", 5)], ["a", "b", "c"], ["boom"]));
    expect(some!.exact).toBe(false);
    expect(some!.mark).toBe("failed, ignored (may be counted as changed by Ansible)");
  });

  it("over several hosts, explains the count per host and hedges on ignored failures", () => {
    const note = explainChangedCount(recap([row("a", 3), row("b", 3)], ["x", "y", "z"], ["boom"]));
    expect(note!.exact).toBe(false);
    expect(note!.text).toContain("6 changes over 2 hosts");
    expect(note!.ignored).toEqual(["boom"]);
    expect(explainChangedCount(recap([row("a", 3), row("b", 3)], ["x", "y", "z"]))!.ignored).toEqual([]);
  });

  it("with the events' per-host detail, is exact over several hosts", () => {
    const detailed = recap([row("a", 3), row("b", 2)], ["x", "y"], ["boom"]);
    detailed.changed_results = {
      changed: [
        { task: "x", hosts: ["a", "b"], results: 2 },
        { task: "y", hosts: ["a", "b"], results: 2 },
      ],
      ignored_failures: [{ task: "boom", hosts: ["a"], results: 1 }],
    };
    const note = explainChangedCount(detailed);
    expect(note!.exact).toBe(true);
    expect(note!.text).toBe(
      "PLAY RECAP counts 5 changes, one per task and host: 4 changes of the 2 tasks above on 2 hosts + 1 failed-but-ignored result that reported changed.",
    );
    expect(note!.ignored).toEqual(["boom (on a)"]);
    expect(note!.mark).toBe("failed, ignored (counted as changed by Ansible)");
  });

  it("with the detail, says nothing when every change is a listed task on one host, and hedges when the detail does not add up", () => {
    const simple = recap([row("h", 2)], ["x", "y"]);
    simple.changed_results = {
      changed: [
        { task: "x", hosts: ["h"], results: 1 },
        { task: "y", hosts: ["h"], results: 1 },
      ],
      ignored_failures: [],
    };
    expect(explainChangedCount(simple)).toBeNull();
    const off = recap([row("a", 3), row("b", 3)], ["x", "y", "z"], ["boom"]);
    off.changed_results = { changed: [{ task: "x", hosts: ["a"], results: 1 }], ignored_failures: [] };
    expect(explainChangedCount(off)!.exact).toBe(false);
  });
});
