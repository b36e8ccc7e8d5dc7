/**
 * An incomplete run (killed, aborted: no PLAY RECAP) says what it did get, in fields of
 * their own (partial_*), and only when asked: the contract's fields and fixtures are unchanged.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePlayformEventLines } from "../../../server/recap/events";
import { recapFromEvents } from "../../../server/recap/from-events";
import { parseRecapText, RecapTextParser } from "../../../server/recap/parse-text";
import type { Recap } from "../../../server/recap/types";

const ROOT = join(import.meta.dirname, "../../fixtures/recap");

function partial(text: string): Recap {
  const parser = new RecapTextParser({ partial: true });
  parser.push(text);
  return parser.finish();
}

const row = (host: string, c: Partial<Record<string, number>>) => ({
  host,
  ok: 0,
  changed: 0,
  unreachable: 0,
  failed: 0,
  skipped: 0,
  rescued: 0,
  ignored: 0,
  ...c,
});

describe("partial figures of an incomplete run (text)", () => {
  it("killed_sigint: per-host counts from the result lines, profile_tasks' elapsed and timings so far", () => {
    const text = readFileSync(join(ROOT, "killed_sigint", "log.txt"), "utf8");
    const recap = partial(text);
    expect(recap.status).toBe("incomplete");
    expect(recap.hosts).toEqual([]);
    expect(recap.elapsed_sec).toBeNull();
    expect(recap.partial_hosts).toEqual([row("node1", { ok: 2, changed: 2 }), row("node2", { ok: 2, changed: 2 })]);
    expect(recap.partial_elapsed_sec).toBe(4);
    expect(recap.partial_slowest_tasks).toEqual([
      { task: "Write maintenance flag", seconds: 2.87 },
      { task: "Quick check", seconds: 1.46 },
    ]);
    // The contract (CLI, fixtures, POST /api/recap) is unchanged.
    expect(parseRecapText(text)).not.toHaveProperty("partial_hosts");
  });

  it("counts ok, skipping, ignored failures and unreachable hosts, a loop as one result", () => {
    const recap = partial(
      [
        "PLAY [p] ***********************************************************************",
        "",
        "TASK [Gathering Facts] *********************************************************",
        "ok: [localhost]",
        "fatal: [gone]: UNREACHABLE! => {}",
        "",
        "TASK [Loop] ********************************************************************",
        "changed: [localhost] => (item=a)",
        "ok: [localhost] => (item=b)",
        "",
        "TASK [Probe] *******************************************************************",
        'fatal: [localhost]: FAILED! => {"msg": "no"}',
        "...ignoring",
        "",
        "TASK [Maybe] *******************************************************************",
        "skipping: [localhost]",
        "",
        "TASK [Long one] ****************************************************************",
        "",
      ].join("\n"),
    );
    expect(recap.status).toBe("incomplete");
    expect(recap.partial_hosts).toEqual([row("gone", { unreachable: 1 }), row("localhost", { ok: 3, changed: 1, skipped: 1, ignored: 1 })]);
    expect(recap.partial_elapsed_sec).toBeNull();
    expect(recap.partial_slowest_tasks).toEqual([]);
  });

  it("a log file (log_path) cut short: timings so far from its line timestamps", () => {
    // log_path_basic up to the 4th task's first result: killed while "Wait for the service" ran.
    const lines = readFileSync(join(ROOT, "log_path_basic", "log.txt"), "utf8").split("\n");
    const recap = partial(lines.slice(0, lines.findIndex((l) => l.includes("ok: [node2]") && l.includes(",410 ")) + 1).join("\n"));
    expect(recap.status).toBe("incomplete");
    expect(recap.elapsed_sec).toBeNull();
    expect(recap.partial_hosts).toEqual([row("node1", { ok: 3, changed: 3 }), row("node2", { ok: 3, changed: 2, skipped: 1 })]);
    // First PLAY banner 21:33:37,827 to the last task's start 21:33:40,160.
    expect(recap.partial_elapsed_sec).toBe(2);
    // Banner to banner; the task still running has none.
    expect(recap.partial_slowest_tasks).toEqual([
      { task: "Install packages", seconds: 1.67 },
      { task: "Write the release marker", seconds: 0.4 },
      { task: "Only on node1", seconds: 0.25 },
    ]);
  });

  it("adds nothing to a complete run", () => {
    const text = readFileSync(join(ROOT, "killed_sigint", "log.txt"), "utf8");
    const done = partial(
      `${text}\nPLAY RECAP *********************************************************************\nnode1 : ok=2 changed=2 unreachable=0 failed=0 skipped=0 rescued=0 ignored=0\n\n`,
    );
    expect(done.status).toBe("successful");
    expect(done).not.toHaveProperty("partial_hosts");
  });
});

describe("an aborted loop", () => {
  // A real run (test/fixtures/recap/README.md, "killed_loop_sigterm"): ansible-playbook with the
  // playform_events callback, its process group sent SIGTERM (as the RTE aborts a job) after 14
  // item results of a 40-item loop on node1 and node2; odd items report changed.
  const dir = join(ROOT, "killed_loop_sigterm");
  const text = readFileSync(join(dir, "log.txt"), "utf8");
  const events = parsePlayformEventLines(readFileSync(join(dir, "events.jsonl"), "utf8"), (line, reason) => {
    throw new Error(`bad event (${reason}): ${line}`);
  });
  // Per host: Prepare (ok), and the loop's 7 items so far (ok, changed at item 1): one result, changed.
  const soFar = [row("node1", { ok: 2, changed: 1 }), row("node2", { ok: 2, changed: 1 })];
  const changedResults = { changed: [{ task: "Slow items", hosts: ["node1", "node2"], results: 2 }], ignored_failures: [] };

  it("the recording is what the item is about: 14 item results, no task result of the loop", () => {
    expect(events.filter((e) => e.type === "item_result")).toHaveLength(14);
    expect(text.match(/^(ok|changed): \[node\d\] => \(item=\d+\)$/gm)).toHaveLength(14);
    expect(events.some((e) => e.type === "stats")).toBe(false);
  });

  it("from the text: the item lines count as results of their host", () => {
    const recap = partial(text);
    expect(recap.status).toBe("incomplete");
    expect(recap.partial_hosts).toEqual(soFar);
  });

  it("from the events: the item results count as results of their host", () => {
    const recap = recapFromEvents(events, { partial: true });
    expect(recap.status).toBe("incomplete");
    expect(recap.partial_hosts).toEqual(soFar);
    expect(recap.changed_results).toEqual(changedResults);
    expect(recap.changed_tasks).toEqual(["Slow items"]);
  });
});
