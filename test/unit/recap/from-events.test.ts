import { describe, expect, it } from "vitest";
import { parsePlayformEvent, parsePlayformEventLines, playformEventSchema, type PlayformEvent } from "../../../server/recap/events";
import { recapFromEvents } from "../../../server/recap/from-events";
import type { RecapHostRow } from "../../../server/recap/types";

/** Builds an event stream with a controllable clock. */
class Run {
  readonly events: PlayformEvent[] = [];
  t = 1_000_000;
  private n = 0;

  at(seconds: number): this {
    this.t += seconds;
    return this;
  }
  playbook(name = "site.yml"): this {
    this.events.push({ v: 1, type: "playbook_start", ts: this.t, playbook: name });
    return this;
  }
  play(name: string, batch = 1): this {
    this.events.push({ v: 1, type: "play_start", ts: this.t, name, pattern: "all", batch, strategy: "linear" });
    return this;
  }
  /** Starts a task and returns its uuid (passing `uuid` starts that task again). */
  task(name: string, opts: { kind?: "task" | "handler" | "cleanup"; include?: boolean; uuid?: string } = {}): string {
    const uuid = opts.uuid ?? `uuid-${++this.n}`;
    this.events.push({
      v: 1,
      type: "task_start",
      ts: this.t,
      task: uuid,
      name,
      kind: opts.kind ?? "task",
      ...(opts.include ? { include: true } : {}),
    });
    return uuid;
  }
  result(
    task: string,
    host: string,
    status: "ok" | "failed" | "skipped" | "unreachable",
    opts: { changed?: boolean; ignored?: boolean; loop?: boolean; include?: boolean; delegate?: string } = {},
  ): this {
    this.events.push({
      v: 1,
      type: "task_result",
      ts: this.t,
      task,
      host,
      status,
      changed: opts.changed ?? false,
      ...(opts.ignored ? { ignored: true } : {}),
      ...(opts.loop ? { loop: true } : {}),
      ...(opts.include ? { include: true } : {}),
      ...(opts.delegate ? { delegate: opts.delegate } : {}),
    });
    return this;
  }
  item(task: string, host: string, status: "ok" | "failed" | "skipped", item: string, changed = false): this {
    this.events.push({ v: 1, type: "item_result", ts: this.t, task, host, status, changed, item });
    return this;
  }
  stats(rows: Array<Partial<RecapHostRow> & { host: string }>): this {
    const hosts = rows.map((r) => ({
      ok: 0,
      changed: 0,
      unreachable: 0,
      failed: 0,
      skipped: 0,
      rescued: 0,
      ignored: 0,
      ...r,
    }));
    this.events.push({ v: 1, type: "stats", ts: this.t, hosts });
    this.events.push({ v: 1, type: "playbook_end", ts: this.t, playbook: "site.yml" });
    return this;
  }
}

const okStats = (...hosts: string[]) => hosts.map((host) => ({ host, ok: 1 }));

describe("recapFromEvents: plays", () => {
  it("lists plays in banner order, one entry per serial batch, hosts null", () => {
    const r = new Run().playbook();
    r.play("Common setup").play("Rolling", 1).play("Rolling", 2).play("node1,node2");
    r.stats(okStats("node1"));
    expect(recapFromEvents(r.events).plays).toEqual([
      { number: 1, name: "Common setup", hosts: null },
      { number: 2, name: "Rolling", hosts: null },
      { number: 3, name: "Rolling", hosts: null },
      { number: 4, name: "node1,node2", hosts: null },
    ]);
  });

  it("keeps a play that matched no hosts and a play named PLAY RECAP; skips a bare PLAY banner", () => {
    const r = new Run().playbook();
    r.play("Nothing here");
    r.events.push({ v: 1, type: "no_hosts_matched", ts: r.t });
    r.play("");
    r.play("PLAY RECAP");
    r.stats([]);
    expect(recapFromEvents(r.events).plays.map((p) => p.name)).toEqual(["Nothing here", "PLAY RECAP"]);
  });
});

describe("recapFromEvents: hosts and status", () => {
  it("takes the rows of the last stats event, sorted by host like the PLAY RECAP", () => {
    const r = new Run().playbook().play("p");
    r.stats([{ host: "web", ok: 1 }]);
    r.playbook("two.yml").play("q");
    r.stats([
      { host: "node2", ok: 3, changed: 1 },
      { host: "Node1", ok: 1, skipped: 2 },
      { host: "node10", ok: 2, rescued: 1, ignored: 1 },
    ]);
    const recap = recapFromEvents(r.events);
    expect(recap.hosts.map((h) => h.host)).toEqual(["Node1", "node10", "node2"]);
    expect(recap.hosts[2]).toEqual({
      host: "node2",
      ok: 3,
      changed: 1,
      unreachable: 0,
      failed: 0,
      skipped: 0,
      rescued: 0,
      ignored: 0,
    });
    expect(recap.status).toBe("successful");
  });

  it("is incomplete without stats: no hosts, no elapsed, no slowest tasks, results still listed", () => {
    const r = new Run().playbook().play("p");
    const a = r.task("Install");
    r.at(2).result(a, "node1", "ok", { changed: true });
    r.at(1).result(a, "node2", "failed");
    r.at(5); // killed
    const recap = recapFromEvents(r.events);
    expect(recap).toMatchObject({
      status: "incomplete",
      hosts: [],
      elapsed_sec: null,
      slowest_tasks: [],
      changed_tasks: ["Install"],
      failed_tasks: ["Install"],
    });
  });

  it("gives an incomplete run's partial_hosts and profile_tasks figures so far, when asked", () => {
    const r = new Run().playbook().play("p");
    const facts = r.task("Gathering Facts");
    r.at(2).result(facts, "localhost", "ok");
    const a = r.task("Install");
    r.at(3).result(a, "localhost", "ok", { changed: true });
    const b = r.task("Probe");
    r.at(1).result(b, "localhost", "failed", { ignored: true });
    const skipped = r.task("Skipped one");
    r.result(skipped, "localhost", "skipped");
    r.task("Wait forever");
    r.at(30); // killed
    const recap = recapFromEvents(r.events, { partial: true });
    expect(recap.hosts).toEqual([]);
    expect(recap.elapsed_sec).toBeNull();
    expect(recap.partial_hosts).toEqual([
      { host: "localhost", ok: 3, changed: 1, unreachable: 0, failed: 0, skipped: 1, rescued: 0, ignored: 1 },
    ]);
    expect(recap.partial_elapsed_sec).toBe(6);
    expect(recap.partial_slowest_tasks).toEqual([
      { task: "Install", seconds: 3 },
      { task: "Gathering Facts", seconds: 2 },
      { task: "Probe", seconds: 1 },
      { task: "Skipped one", seconds: 0 },
    ]);
    // Not asked, or a complete run: the contract's fields only.
    expect(recapFromEvents(r.events)).not.toHaveProperty("partial_hosts");
  });

  it("is failed when a recap row has failed or unreachable hosts", () => {
    const failed = new Run()
      .playbook()
      .play("p")
      .stats([
        { host: "a", ok: 1 },
        { host: "b", failed: 1 },
      ]);
    expect(recapFromEvents(failed.events).status).toBe("failed");
    const dark = new Run()
      .playbook()
      .play("p")
      .stats([{ host: "a", unreachable: 1 }]);
    expect(recapFromEvents(dark.events).status).toBe("failed");
  });

  it("is successful when a failure was rescued (failed_tasks still lists it)", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("Risky step");
    r.result(t, "node1", "failed");
    const rescue = r.task("Recover");
    r.result(rescue, "node1", "ok", { changed: true });
    r.stats([{ host: "node1", ok: 1, changed: 1, rescued: 1 }]);
    const recap = recapFromEvents(r.events);
    expect(recap.status).toBe("successful");
    expect(recap.failed_tasks).toEqual(["Risky step"]);
  });
});

describe("recapFromEvents: elapsed_sec and slowest_tasks (profile_tasks)", () => {
  it("floors the time from the playbook start to the stats", () => {
    const r = new Run().playbook().play("p");
    r.at(0.05);
    const a = r.task("A");
    r.at(7.98).result(a, "h", "ok");
    r.stats(okStats("h"));
    expect(recapFromEvents(r.events).elapsed_sec).toBe(8);
    const r2 = new Run().playbook().play("p");
    r2.at(0.05);
    r2.task("A");
    r2.at(7.9);
    r2.stats(okStats("h"));
    expect(recapFromEvents(r2.events).elapsed_sec).toBe(7);
  });

  it("times a task from its start to the next start or the stats, descending, rounded to 2 decimals", () => {
    const r = new Run().playbook().play("p");
    r.at(0.01);
    r.task("fast");
    r.at(0.404);
    r.task("slow");
    r.at(2.5);
    r.task("common : restart", { kind: "handler" });
    r.at(1.2361);
    r.stats(okStats("h"));
    expect(recapFromEvents(r.events).slowest_tasks).toEqual([
      { task: "slow", seconds: 2.5 },
      { task: "common : restart", seconds: 1.24 },
      { task: "fast", seconds: 0.4 },
    ]);
  });

  it("sums a serial task over its batches under its first (templated) name", () => {
    const r = new Run().playbook().play("Rolling", 1);
    const write = r.task("Write node1 marker");
    r.at(1);
    const other = r.task("Other");
    r.at(0.5);
    r.play("Rolling", 2);
    r.task("Write node3 marker", { uuid: write });
    r.at(2);
    r.task("Other", { uuid: other });
    r.at(0.25);
    r.stats(okStats("node1"));
    expect(recapFromEvents(r.events).slowest_tasks).toEqual([
      { task: "Write node1 marker", seconds: 3 },
      { task: "Other", seconds: 0.75 },
    ]);
  });

  it("does not time CLEANUP tasks (their time stays with the running task)", () => {
    const r = new Run().playbook().play("p");
    r.task("A");
    r.at(1);
    r.task("cleanup", { kind: "cleanup" });
    r.at(1);
    r.stats(okStats("h"));
    expect(recapFromEvents(r.events).slowest_tasks).toEqual([{ task: "A", seconds: 2 }]);
  });

  it("keeps start order for equal times and shows the top 20", () => {
    const r = new Run().playbook().play("p");
    for (let i = 1; i <= 25; i++) {
      r.task(`t${i}`);
      r.at(i === 25 ? 9 : 1);
    }
    r.stats(okStats("h"));
    const slow = recapFromEvents(r.events).slowest_tasks;
    expect(slow).toHaveLength(20);
    expect(slow.slice(0, 3).map((s) => s.task)).toEqual(["t25", "t1", "t2"]);
    expect(recapFromEvents(r.events, { slowestLimit: null }).slowest_tasks).toHaveLength(25);
  });

  it("keeps tasks with the same name apart, like profile_tasks (keyed by task)", () => {
    const r = new Run().playbook().play("p");
    r.task("debug");
    r.at(1);
    r.task("debug");
    r.at(2);
    r.stats(okStats("h"));
    expect(recapFromEvents(r.events).slowest_tasks).toEqual([
      { task: "debug", seconds: 2 },
      { task: "debug", seconds: 1 },
    ]);
  });

  it("uses the last stats over several playbooks and skips the gap between playbooks", () => {
    const r = new Run().playbook("one.yml").play("p1");
    r.task("first");
    r.at(1);
    r.stats(okStats("h"));
    r.at(10).playbook("two.yml").play("p2");
    r.task("second");
    r.at(2);
    r.stats(okStats("h"));
    const recap = recapFromEvents(r.events);
    expect(recap.slowest_tasks).toEqual([
      { task: "second", seconds: 2 },
      { task: "first", seconds: 1 },
    ]);
    expect(recap.elapsed_sec).toBe(13);
  });

  it("is incomplete with the last summary when a later playbook was killed", () => {
    const r = new Run().playbook("one.yml").play("p1");
    r.task("first");
    r.at(1);
    r.stats(okStats("h"));
    r.playbook("two.yml").play("p2");
    r.task("never summarised");
    r.at(30);
    const recap = recapFromEvents(r.events);
    expect(recap.status).toBe("incomplete");
    expect(recap.hosts.map((h) => h.host)).toEqual(["h"]);
    expect(recap.plays.map((p) => p.name)).toEqual(["p1", "p2"]);
    expect(recap.elapsed_sec).toBe(1);
    expect(recap.slowest_tasks).toEqual([{ task: "first", seconds: 1 }]);
  });
});

describe("recapFromEvents: changed_tasks", () => {
  it("lists tasks with a changed result in first-seen order, once, including handlers and delegation", () => {
    const r = new Run().playbook().play("p");
    const a = r.task("common : Write motd");
    r.result(a, "node1", "ok", { changed: true }).result(a, "node2", "ok", { changed: true });
    const b = r.task("Check uptime");
    r.result(b, "node1", "ok").result(b, "node2", "skipped");
    const c = r.task("Register in LB");
    r.result(c, "node1", "ok", { changed: true, delegate: "localhost" });
    const h = r.task("common : restart motd", { kind: "handler" });
    r.result(h, "node1", "ok", { changed: true });
    r.stats(okStats("node1", "node2"));
    expect(recapFromEvents(r.events).changed_tasks).toEqual(["common : Write motd", "Register in LB", "common : restart motd"]);
  });

  it("does not count a failed result with changed: true (it prints fatal, not changed)", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("Check free space");
    r.result(t, "node2", "failed", { changed: true });
    const u = r.task("Ignored but changed");
    r.result(u, "node1", "failed", { changed: true, ignored: true });
    r.stats([
      { host: "node1", ok: 1, changed: 1, ignored: 1 },
      { host: "node2", failed: 1 },
    ]);
    const recap = recapFromEvents(r.events);
    expect(recap.changed_tasks).toEqual([]);
    expect(recap.failed_tasks).toEqual(["Check free space"]);
    expect(recap.ignored_failures).toEqual(["Ignored but changed"]);
  });

  it("judges loops per item: the loop's own changed summary does not count", () => {
    const r = new Run().playbook().play("p");
    const quiet = r.task("All items ok");
    r.item(quiet, "node1", "ok", "a").item(quiet, "node1", "ok", "b");
    // a summary marked changed (e.g. changed_when on the whole loop) still prints nothing
    r.result(quiet, "node1", "ok", { changed: true, loop: true });
    const mixed = r.task("Mixed");
    r.item(mixed, "node1", "ok", "a").item(mixed, "node1", "ok", "b", true);
    r.result(mixed, "node1", "ok", { changed: true, loop: true });
    const skipped = r.task("Skipped items");
    r.item(skipped, "node1", "skipped", "a");
    r.result(skipped, "node1", "skipped", { loop: true });
    r.stats(okStats("node1"));
    expect(recapFromEvents(r.events).changed_tasks).toEqual(["Mixed"]);
  });

  it("never counts include_tasks / include_role results, even per item", () => {
    const r = new Run().playbook().play("p");
    const inc = r.task("Include per colour", { include: true });
    r.item(inc, "node1", "ok", "red", true);
    r.result(inc, "node1", "ok", { changed: true, loop: true });
    r.events.push({ v: 1, type: "include", ts: r.t, task: inc, file: "/x/per_item.yml", hosts: ["node1"], item: "red" });
    const role = r.task("Include monitoring");
    r.result(role, "node1", "ok", { changed: true, include: true });
    const paint = r.task("Paint red");
    r.result(paint, "node1", "ok", { changed: true });
    r.stats(okStats("node1"));
    expect(recapFromEvents(r.events).changed_tasks).toEqual(["Paint red"]);
  });

  it("names a result by the banner of its task's latest start (templated per batch)", () => {
    const r = new Run().playbook().play("Rolling", 1);
    const w = r.task("Write node1 marker");
    r.result(w, "node1", "ok", { changed: true });
    r.play("Rolling", 2);
    r.task("Write node3 marker", { uuid: w });
    r.result(w, "node3", "ok", { changed: true });
    r.stats(okStats("node1", "node3"));
    expect(recapFromEvents(r.events).changed_tasks).toEqual(["Write node1 marker", "Write node3 marker"]);
  });

  it("uses the banner name (stripped) for lists and the raw name for timings", () => {
    const r = new Run().playbook().play("p");
    r.events.push({ v: 1, type: "task_start", ts: r.t, task: "u1", name: "Spaced  ", display_name: "Spaced", kind: "task" });
    r.result("u1", "h", "ok", { changed: true });
    r.events.push({ v: 1, type: "task_start", ts: r.t, task: "u2", name: " Lead", kind: "task" });
    r.result("u2", "h", "ok", { changed: true });
    r.at(1);
    r.stats(okStats("h"));
    const recap = recapFromEvents(r.events);
    expect(recap.changed_tasks).toEqual(["Spaced", "Lead"]);
    expect(recap.slowest_tasks.map((s) => s.task)).toEqual([" Lead", "Spaced  "]);
  });

  it("ignores results of hosts that are not in the PLAY RECAP (as the text does)", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("Ghost");
    r.result(t, "ghost", "ok", { changed: true }).result(t, "ghost", "failed").result(t, "ghost", "unreachable");
    r.stats(okStats("node1"));
    const recap = recapFromEvents(r.events);
    expect(recap.changed_tasks).toEqual([]);
    expect(recap.failed_tasks).toEqual([]);
    expect(recap.unreachable_hosts).toEqual([]);
  });
});

describe("recapFromEvents: ignored_failures and failed_tasks", () => {
  it("separates ignored failures from failures, in first-seen order", () => {
    const r = new Run().playbook().play("p");
    const a = r.task("Ignored one");
    r.result(a, "node1", "failed", { ignored: true }).result(a, "node2", "failed", { ignored: true });
    const b = r.task("Hard failure");
    r.result(b, "node2", "failed").result(b, "node1", "ok");
    const c = r.task("Another ignored");
    r.result(c, "node1", "failed", { ignored: true });
    const d = r.task("Retried then failed");
    r.events.push({ v: 1, type: "retry", ts: r.t, task: d, host: "node1", attempts: 1, retries: 3 });
    r.result(d, "node1", "failed");
    r.stats([
      { host: "node1", ok: 3, ignored: 2, failed: 1 },
      { host: "node2", ok: 1, failed: 1, ignored: 1 },
    ]);
    const recap = recapFromEvents(r.events);
    expect(recap.ignored_failures).toEqual(["Ignored one", "Another ignored"]);
    expect(recap.failed_tasks).toEqual(["Hard failure", "Retried then failed"]);
  });

  it("puts a task in both lists when ignore_errors differs per host", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("Templated ignore");
    r.result(t, "node1", "failed", { ignored: true }).result(t, "node2", "failed");
    r.stats([
      { host: "node1", ok: 1, ignored: 1 },
      { host: "node2", failed: 1 },
    ]);
    const recap = recapFromEvents(r.events);
    expect(recap.ignored_failures).toEqual(["Templated ignore"]);
    expect(recap.failed_tasks).toEqual(["Templated ignore"]);
  });

  it("judges a loop's failures by its failed items and the loop result's ignore_errors", () => {
    const r = new Run().playbook().play("p");
    const ign = r.task("Loop with ignored item");
    r.item(ign, "node1", "ok", "a", true).item(ign, "node1", "failed", "bad", true).item(ign, "node1", "ok", "c", true);
    r.item(ign, "node2", "ok", "a", true).item(ign, "node2", "ok", "bad").item(ign, "node2", "ok", "c");
    r.result(ign, "node1", "failed", { changed: true, ignored: true, loop: true });
    r.result(ign, "node2", "ok", { changed: true, loop: true });
    const hard = r.task("Loop failing");
    r.item(hard, "node2", "failed", "x");
    r.result(hard, "node2", "failed", { loop: true });
    r.stats([
      { host: "node1", ok: 1, changed: 1, ignored: 1 },
      { host: "node2", ok: 1, changed: 1, failed: 1 },
    ]);
    const recap = recapFromEvents(r.events);
    // failed items with changed: true still let the ok items mark the task changed
    expect(recap.changed_tasks).toEqual(["Loop with ignored item"]);
    expect(recap.ignored_failures).toEqual(["Loop with ignored item"]);
    expect(recap.failed_tasks).toEqual(["Loop failing"]);
  });

  it("does not list a loop whose summary failed without a failed item line", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("Odd loop");
    r.item(t, "node1", "ok", "a");
    r.result(t, "node1", "failed", { loop: true, ignored: true });
    r.stats([{ host: "node1", ok: 1, ignored: 1 }]);
    const recap = recapFromEvents(r.events);
    expect(recap.failed_tasks).toEqual([]);
    expect(recap.ignored_failures).toEqual([]);
  });

  it("lists a loop failure without item results (e.g. an undefined loop variable) as fatal", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("Loop over nothing");
    r.result(t, "node1", "failed");
    r.stats([{ host: "node1", failed: 1 }]);
    expect(recapFromEvents(r.events).failed_tasks).toEqual(["Loop over nothing"]);
  });
});

describe("recapFromEvents: failures under strategy free and same-named tasks", () => {
  it("matches a host's ignore to its failure across the per-host task starts of strategy free", () => {
    const r = new Run().playbook().play("Free for all");
    const step = r.task("Free step node1");
    r.result(step, "node1", "ok");
    const loop = r.task("Free loop"); // node1 starts it
    r.task("Free step node1", { uuid: step }); // node2 starts the first task
    r.item(loop, "node1", "failed", "2", true);
    r.result(step, "node2", "ok", { changed: true });
    r.task("Free loop", { uuid: loop }); // node2 starts the loop
    r.result(loop, "node1", "failed", { changed: true, ignored: true, loop: true });
    r.item(loop, "node2", "failed", "2", true);
    r.result(loop, "node2", "failed", { changed: true, ignored: true, loop: true });
    r.stats([
      { host: "node1", ok: 2, ignored: 1 },
      { host: "node2", ok: 2, changed: 1, ignored: 1 },
    ]);
    const recap = recapFromEvents(r.events);
    expect(recap.ignored_failures).toEqual(["Free loop"]);
    expect(recap.failed_tasks).toEqual([]);
    expect(recap.changed_tasks).toEqual(["Free step node1"]);
  });

  it("orders each list by the task's first failure line, even when a later host decides the list", () => {
    const r = new Run().playbook().play("Free");
    const x = r.task("X");
    r.result(x, "node1", "failed", { ignored: true });
    const y = r.task("Y");
    r.result(y, "node1", "failed");
    r.task("X", { uuid: x });
    r.result(x, "node2", "failed");
    r.stats([
      { host: "node1", ok: 1, ignored: 1, failed: 1 },
      { host: "node2", failed: 1 },
    ]);
    const recap = recapFromEvents(r.events);
    expect(recap.failed_tasks).toEqual(["X", "Y"]);
    expect(recap.ignored_failures).toEqual(["X"]);
  });

  it("opens a new episode after an ignored one (two tasks with the same name)", () => {
    const r = new Run().playbook().play("p");
    const first = r.task("check");
    r.result(first, "node1", "failed", { ignored: true });
    const second = r.task("check");
    r.result(second, "node1", "failed");
    r.stats([{ host: "node1", ok: 1, ignored: 1, failed: 1 }]);
    const recap = recapFromEvents(r.events);
    expect(recap.ignored_failures).toEqual(["check"]);
    expect(recap.failed_tasks).toEqual(["check"]);
  });
});

describe("recapFromEvents: unreachable_hosts", () => {
  it("lists unreachable hosts once in first-seen order, never as failures, ignore_unreachable included", () => {
    const r = new Run().playbook().play("p");
    const a = r.task("Ping");
    r.result(a, "dead2", "unreachable").result(a, "dead1", "unreachable").result(a, "node1", "ok");
    const b = r.task("Ping again");
    r.result(b, "dead1", "unreachable");
    const c = r.task("Tolerant ping");
    r.result(c, "flaky", "unreachable", { ignored: true });
    r.stats([
      { host: "dead1", unreachable: 1 },
      { host: "dead2", unreachable: 1 },
      { host: "flaky", ok: 1, ignored: 1 },
      { host: "node1", ok: 1 },
    ]);
    const recap = recapFromEvents(r.events);
    expect(recap.unreachable_hosts).toEqual(["dead2", "dead1", "flaky"]);
    expect(recap.failed_tasks).toEqual([]);
    expect(recap.ignored_failures).toEqual([]);
    expect(recap.status).toBe("failed");
  });

  it("does not count a delegated unreachable host: the result's host is what is shown before ' -> '", () => {
    const r = new Run().playbook().play("p");
    const a = r.task("Via bastion");
    r.result(a, "node1", "unreachable", { delegate: "bastion" });
    r.stats([{ host: "node1", unreachable: 1 }]);
    expect(recapFromEvents(r.events).unreachable_hosts).toEqual(["node1"]);
  });
});

describe("recapFromEvents: full shape", () => {
  it("returns exactly the recap fields (no tasks_per_play outside plans)", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("A");
    r.at(1.5).result(t, "h", "ok", { changed: true });
    r.stats([{ host: "h", ok: 1, changed: 1 }]);
    expect(recapFromEvents(r.events)).toEqual({
      plays: [{ number: 1, name: "p", hosts: null }],
      hosts: [{ host: "h", ok: 1, changed: 1, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 }],
      elapsed_sec: 1,
      slowest_tasks: [{ task: "A", seconds: 1.5 }],
      changed_tasks: ["A"],
      ignored_failures: [],
      failed_tasks: [],
      unreachable_hosts: [],
      status: "successful",
    });
  });

  it("gives an empty incomplete recap for no events", () => {
    expect(recapFromEvents([])).toEqual({
      plays: [],
      hosts: [],
      elapsed_sec: null,
      slowest_tasks: [],
      changed_tasks: [],
      ignored_failures: [],
      failed_tasks: [],
      unreachable_hosts: [],
      status: "incomplete",
    });
  });
});

describe("event schema", () => {
  it("parses known v1 events strictly and drops unknown keys", () => {
    const parsed = parsePlayformEvent({
      v: 1,
      type: "task_result",
      ts: 1.5,
      task: "u",
      host: "h",
      status: "ok",
      changed: true,
      future_field: 1,
    });
    expect(parsed).toEqual({
      kind: "event",
      event: { v: 1, type: "task_result", ts: 1.5, task: "u", host: "h", status: "ok", changed: true },
    });
  });

  it("rejects a known event with wrong fields", () => {
    expect(parsePlayformEvent({ v: 1, type: "task_result", ts: 1, task: "u", host: "h", status: "bogus", changed: false }).kind).toBe(
      "invalid",
    );
    expect(parsePlayformEvent({ v: 1, type: "stats", ts: 1 }).kind).toBe("invalid");
    expect(parsePlayformEvent("nope").kind).toBe("invalid");
    expect(playformEventSchema.safeParse({ v: 1, type: "stats", ts: 1 }).success).toBe(false);
  });

  it("ignores unknown event types and other contract versions", () => {
    expect(parsePlayformEvent({ v: 1, type: "host_start", ts: 1, host: "h" })).toEqual({ kind: "ignored", type: "host_start" });
    expect(parsePlayformEvent({ v: 2, type: "stats", ts: 1, hosts: "changed shape" })).toEqual({ kind: "ignored", type: "stats" });
    expect(playformEventSchema.parse({ v: 1, type: "host_start", ts: 1 })).toBeNull();
    expect(playformEventSchema.parse({ v: 1, type: "no_hosts_matched", ts: 2 })).toEqual({
      v: 1,
      type: "no_hosts_matched",
      ts: 2,
    });
  });

  it("reads a JSON-lines stream, skipping blank, broken, unknown and invalid lines", () => {
    const skipped: number[] = [];
    const text = [
      '{"v":1,"type":"playbook_start","ts":1,"playbook":"a.yml"}',
      "",
      '{"v":1,"type":"mystery","ts":2}',
      '{"v":1,"type":"stats","ts":3,"hosts":[{"host":"h","ok":1,"changed":0,"unreachable":0,"failed":0,"skipped":0,"rescued":0,"ignored":0}]}\r',
      '{"v":1,"type":"task_start","ts":4}',
      '{"v":1,"type":"playbook_e', // cut off when the run was killed
    ].join("\n");
    const events = parsePlayformEventLines(text, (line) => skipped.push(line));
    expect(events.map((e) => e.type)).toEqual(["playbook_start", "stats"]);
    expect(skipped).toEqual([5, 6]);
  });
});
