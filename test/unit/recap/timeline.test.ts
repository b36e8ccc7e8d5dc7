import { describe, expect, it } from "vitest";
import type { PlayformEvent } from "../../../server/recap/events";
import { timelineFromEvents, worstHostStatus, type TimelineTask } from "../../../server/recap/timeline";
import type { RecapHostRow } from "../../../server/recap/types";

const T0 = 1_700_000_000;

/** Builds an event stream on a clock that only moves when told (`at`). */
class Run {
  readonly events: PlayformEvent[] = [];
  t = T0;
  private n = 0;

  at(seconds: number): this {
    this.t = Math.round((this.t + seconds) * 1000) / 1000;
    return this;
  }
  playbook(name = "site.yml"): this {
    this.events.push({ v: 1, type: "playbook_start", ts: this.t, playbook: name });
    return this;
  }
  play(name: string, opts: { batch?: number; strategy?: string } = {}): this {
    this.events.push({
      v: 1,
      type: "play_start",
      ts: this.t,
      name,
      pattern: "all",
      batch: opts.batch ?? 1,
      strategy: opts.strategy ?? "linear",
    });
    return this;
  }
  /** Starts a task and returns its uuid (passing `uuid` starts that task again). */
  task(name: string, opts: { kind?: "task" | "handler" | "cleanup"; uuid?: string; displayName?: string } = {}): string {
    const uuid = opts.uuid ?? `uuid-${++this.n}`;
    this.events.push({
      v: 1,
      type: "task_start",
      ts: this.t,
      task: uuid,
      name,
      kind: opts.kind ?? "task",
      ...(opts.displayName ? { display_name: opts.displayName } : {}),
    });
    return uuid;
  }
  result(
    task: string,
    host: string,
    status: "ok" | "failed" | "skipped" | "unreachable",
    opts: { changed?: boolean; ignored?: boolean; loop?: boolean } = {},
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
    });
    return this;
  }
  item(task: string, host: string, status: "ok" | "failed" | "skipped", item: string, changed = false): this {
    this.events.push({ v: 1, type: "item_result", ts: this.t, task, host, status, changed, item });
    return this;
  }
  retry(task: string, host: string): this {
    this.events.push({ v: 1, type: "retry", ts: this.t, task, host, attempts: 1, retries: 3 });
    return this;
  }
  /** The PLAY RECAP and the end of the playbook, at the same moment as the plugin sends them. */
  stats(rows: Array<Partial<RecapHostRow> & { host: string }>, playbook = "site.yml"): this {
    const hosts = rows.map((r) => ({ ok: 0, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0, ...r }));
    this.events.push({ v: 1, type: "stats", ts: this.t, hosts });
    this.events.push({ v: 1, type: "playbook_end", ts: this.t, playbook });
    return this;
  }
}

const spans = (tasks: TimelineTask[]) => tasks.map((t) => [t.task, t.start_sec, t.end_sec]);

describe("timelineFromEvents: linear plays", () => {
  it("starts at the first task; a task runs until the next one starts; the last one until the stats", () => {
    const r = new Run().playbook().at(0.4).play("Hello");
    r.at(0.1);
    const a = r.task("Print the message");
    r.at(0.02).result(a, "localhost", "ok");
    r.at(0.01);
    const b = r.task("Take a short breath");
    r.at(2.05).result(b, "localhost", "ok");
    r.at(0.01);
    const c = r.task("Write the marker", { displayName: "Write the marker" });
    r.at(0.3).result(c, "localhost", "ok", { changed: true });
    r.at(0.05).stats([{ host: "localhost", ok: 3, changed: 1 }]);

    const tl = timelineFromEvents(r.events);
    expect(tl.started_at).toBe(T0 + 0.5);
    expect(spans(tl.tasks)).toEqual([
      ["Print the message", 0, 0.03],
      ["Take a short breath", 0.03, 2.09],
      ["Write the marker", 2.09, 2.44],
    ]);
    expect(tl.tasks.map((t) => t.duration_sec)).toEqual([0.03, 2.06, 0.35]);
    expect(tl.tasks[1]!.hosts).toEqual([{ host: "localhost", status: "ok", at_sec: 2.08 }]);
    expect(tl.tasks[2]!.hosts).toEqual([{ host: "localhost", status: "changed", at_sec: 2.39 }]);
    expect(tl.total_sec).toBe(2.44);
    // The play starts before the first task: clamped to the start of the axis.
    expect(tl.plays).toEqual([{ number: 1, name: "Hello", start_sec: 0, end_sec: 2.44 }]);
  });

  it("names a task by its banner NAME (display_name) like the recap, with its kind", () => {
    const r = new Run().playbook().play("p");
    const a = r.task("  padded  ", { displayName: "padded" });
    r.at(1);
    r.task("restart web", { kind: "handler" });
    r.at(1);
    r.task("cleanup", { kind: "cleanup" });
    r.at(1).stats([]);
    const tl = timelineFromEvents(r.events);
    expect(tl.tasks.map((t) => [t.task, t.kind, t.duration_sec])).toEqual([
      ["padded", "task", 1],
      ["restart web", "handler", 1],
      // profile_tasks would bill a cleanup task's time to the task before it; here it is its own.
      ["cleanup", "cleanup", 1],
    ]);
    expect(a).toBe("uuid-1");
  });

  it("ends the last task of a play at the next play's start, and marks each play's span", () => {
    const r = new Run().playbook().play("One");
    const a = r.task("a");
    r.at(1).result(a, "h", "ok");
    r.at(0.5).play("Two");
    r.at(0.25);
    const b = r.task("b");
    r.at(1).result(b, "h", "ok");
    r.at(0.25).stats([{ host: "h", ok: 2 }]);
    const tl = timelineFromEvents(r.events);
    expect(spans(tl.tasks)).toEqual([
      ["a", 0, 1.5],
      ["b", 1.75, 3],
    ]);
    expect(tl.tasks.map((t) => t.play)).toEqual([1, 2]);
    expect(tl.plays).toEqual([
      { number: 1, name: "One", start_sec: 0, end_sec: 1.5 },
      { number: 2, name: "Two", start_sec: 1.5, end_sec: 3 },
    ]);
  });

  it("gives every serial batch its own play and its own entry of the same task", () => {
    const r = new Run().playbook().play("Rolling", { batch: 1 });
    const t = r.task("upgrade");
    r.at(2).result(t, "n1", "ok", { changed: true });
    r.play("Rolling", { batch: 2 });
    r.at(0.5);
    r.task("upgrade", { uuid: t });
    r.at(3).result(t, "n2", "ok");
    r.stats([
      { host: "n1", ok: 1, changed: 1 },
      { host: "n2", ok: 1 },
    ]);
    const tl = timelineFromEvents(r.events);
    expect(tl.plays.map((p) => [p.number, p.name])).toEqual([
      [1, "Rolling"],
      [2, "Rolling"],
    ]);
    expect(tl.tasks.map((t) => [t.task, t.play, t.start_sec, t.end_sec, t.hosts.map((h) => `${h.host}:${h.status}`)])).toEqual([
      ["upgrade", 1, 0, 2, ["n1:changed"]],
      ["upgrade", 2, 2.5, 5.5, ["n2:ok"]],
    ]);
  });

  it("makes a handler that runs twice (flush_handlers, then the end of the play) two entries", () => {
    const r = new Run().playbook().play("p");
    const h = r.task("restart", { kind: "handler" });
    r.at(1).result(h, "n1", "ok", { changed: true });
    const t = r.task("more");
    r.at(1).result(t, "n1", "ok");
    r.task("restart", { kind: "handler", uuid: h });
    r.at(2).result(h, "n1", "ok");
    r.stats([{ host: "n1", ok: 3, changed: 1 }]);
    const tl = timelineFromEvents(r.events);
    expect(tl.tasks.map((t) => [t.task, t.duration_sec, t.hosts[0]?.status])).toEqual([
      ["restart", 1, "changed"],
      ["more", 1, "ok"],
      ["restart", 2, "ok"],
    ]);
  });

  it("lists hosts in the order their results arrived, each with its arrival time", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("ping");
    r.at(0.2).result(t, "web2", "ok");
    r.at(0.3).result(t, "web1", "skipped");
    r.at(0.5).result(t, "db", "unreachable");
    r.stats([]);
    expect(timelineFromEvents(r.events).tasks[0]!.hosts).toEqual([
      { host: "web2", status: "ok", at_sec: 0.2 },
      { host: "web1", status: "skipped", at_sec: 0.5 },
      { host: "db", status: "unreachable", at_sec: 1 },
    ]);
  });

  it("keeps a task without results (an include, a meta task) with no hosts", () => {
    const r = new Run().playbook().play("p");
    r.task("meta: refresh inventory");
    r.at(0.1).task("next");
    r.at(1).stats([]);
    const tl = timelineFromEvents(r.events);
    expect(tl.tasks[0]).toMatchObject({ task: "meta: refresh inventory", duration_sec: 0.1, hosts: [] });
    expect(worstHostStatus(tl.tasks[0]!.hosts)).toBeNull();
  });
});

describe("timelineFromEvents: host statuses", () => {
  it("calls ignore_errors failures and ignore_unreachable results ignored", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("try");
    r.at(1).result(t, "a", "failed", { ignored: true });
    r.result(t, "b", "unreachable", { ignored: true });
    r.result(t, "c", "failed");
    r.stats([
      { host: "a", ok: 1, ignored: 1 },
      { host: "b", ok: 1, ignored: 1 },
      { host: "c", failed: 1 },
    ]);
    expect(timelineFromEvents(r.events).tasks[0]!.hosts.map((h) => `${h.host}:${h.status}`)).toEqual([
      "a:ignored",
      "b:ignored",
      "c:failed",
    ]);
  });

  it("marks a failure a rescue section handled as rescued, from the stats' rescued counter", () => {
    const r = new Run().playbook().play("p");
    const risky = r.task("risky");
    r.at(1).result(risky, "n1", "failed").result(risky, "n2", "ok");
    const rescue = r.task("recover");
    r.at(1).result(rescue, "n1", "ok", { changed: true });
    r.stats([
      { host: "n1", ok: 1, changed: 1, rescued: 1 },
      { host: "n2", ok: 1 },
    ]);
    const tl = timelineFromEvents(r.events);
    expect(tl.tasks[0]!.hosts.map((h) => `${h.host}:${h.status}`)).toEqual(["n1:rescued", "n2:ok"]);
    expect(worstHostStatus(tl.tasks[0]!.hosts)).toBe("rescued");
  });

  it("keeps the failure of the rescue section itself failed: the first failures are the rescued ones", () => {
    const r = new Run().playbook().play("p");
    const risky = r.task("risky");
    r.at(1).result(risky, "n1", "failed");
    const rescue = r.task("recover");
    r.at(1).result(rescue, "n1", "failed");
    r.stats([{ host: "n1", failed: 1, rescued: 1 }]);
    expect(timelineFromEvents(r.events).tasks.map((t) => t.hosts[0]!.status)).toEqual(["rescued", "failed"]);
  });

  it("reads each playbook's share of the cumulative stats", () => {
    const r = new Run().playbook("a.yml").play("p");
    const one = r.task("one");
    r.at(1).result(one, "n1", "failed");
    r.task("rescue one");
    r.at(1).stats([{ host: "n1", rescued: 1 }], "a.yml");
    r.playbook("b.yml").play("q");
    const two = r.task("two");
    r.at(1).result(two, "n1", "failed");
    r.stats([{ host: "n1", failed: 1, rescued: 1 }], "b.yml");
    expect(timelineFromEvents(r.events).tasks.map((t) => [t.task, t.hosts[0]?.status])).toEqual([
      ["one", "rescued"],
      ["rescue one", undefined],
      ["two", "failed"],
    ]);
  });

  it("ranks statuses: failed over unreachable over rescued over ignored over changed over ok over skipped", () => {
    const worst = (...statuses: Parameters<typeof worstHostStatus>[0][number]["status"][]) =>
      worstHostStatus(statuses.map((status) => ({ status })));
    expect(worst("skipped", "ok")).toBe("ok");
    expect(worst("ok", "changed", "skipped")).toBe("changed");
    expect(worst("changed", "ignored")).toBe("ignored");
    expect(worst("ignored", "rescued")).toBe("rescued");
    expect(worst("rescued", "unreachable")).toBe("unreachable");
    expect(worst("unreachable", "failed", "ok")).toBe("failed");
  });
});

describe("timelineFromEvents: loops", () => {
  it("gives one host entry per loop, changed when any item changed, at the loop's own result", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("install packages");
    r.at(0.5).item(t, "n2", "skipped", "vim");
    r.at(0.5).item(t, "n1", "ok", "vim");
    r.at(0.5).item(t, "n1", "ok", "git", true);
    r.at(0.1).result(t, "n1", "ok", { changed: true, loop: true });
    r.at(0.4).item(t, "n2", "skipped", "git");
    r.at(0.1).result(t, "n2", "skipped", { loop: true });
    r.at(0.4).stats([
      { host: "n1", ok: 1, changed: 1 },
      { host: "n2", skipped: 1 },
    ]);
    expect(timelineFromEvents(r.events).tasks[0]!.hosts).toEqual([
      { host: "n1", status: "changed", at_sec: 1.6 },
      { host: "n2", status: "skipped", at_sec: 2.1 },
    ]);
  });

  it("takes the loop's own result over its items: a failed item under ignore_errors is ignored", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("try each");
    r.at(0.5).item(t, "n1", "failed", "a");
    r.at(0.5).item(t, "n1", "ok", "b", true);
    r.result(t, "n1", "failed", { loop: true, ignored: true, changed: true });
    r.stats([{ host: "n1", ok: 1, changed: 1, ignored: 1 }]);
    expect(timelineFromEvents(r.events).tasks[0]!.hosts).toEqual([{ host: "n1", status: "ignored", at_sec: 1 }]);
  });

  it("takes the worst item of a loop cut off before its own result", () => {
    const r = new Run().playbook().play("p");
    const t = r.task("loop");
    r.at(0.5).item(t, "n1", "ok", "a", true);
    r.at(0.5).item(t, "n1", "failed", "b");
    r.at(0.5).item(t, "n1", "ok", "c");
    r.at(3).item(t, "n2", "ok", "a", true);
    r.at(1); // killed: nothing more
    const tl = timelineFromEvents(r.events);
    expect(tl.tasks[0]!.hosts).toEqual([
      { host: "n1", status: "failed", at_sec: 1.5 },
      { host: "n2", status: "changed", at_sec: 4.5 },
    ]);
  });
});

describe("timelineFromEvents: strategy free", () => {
  it("keeps one overlapping entry per task, from its first start to its last host result", () => {
    // As the plugin reports it: one task_start per host, results as each host gets there.
    const r = new Run().playbook().play("Free", { strategy: "free" });
    const slow = r.task("sleep");
    r.at(0.01).task("sleep", { uuid: slow });
    r.at(0.5).result(slow, "n1", "ok", { changed: true });
    const next = r.task("second");
    r.at(0.1).result(next, "n1", "ok");
    r.at(1).result(slow, "n2", "ok", { changed: true });
    r.task("second", { uuid: next });
    r.at(0.2).result(next, "n2", "ok");
    r.at(0.3).play("After");
    const after = r.task("after");
    r.at(1).result(after, "n1", "ok");
    r.stats([
      { host: "n1", ok: 3 },
      { host: "n2", ok: 2 },
    ]);
    const tl = timelineFromEvents(r.events);
    expect(spans(tl.tasks)).toEqual([
      ["sleep", 0, 1.61],
      ["second", 0.51, 1.81],
      ["after", 2.11, 3.11],
    ]);
    expect(tl.tasks[0]!.hosts).toEqual([
      { host: "n1", status: "changed", at_sec: 0.51 },
      { host: "n2", status: "changed", at_sec: 1.61 },
    ]);
    expect(tl.plays.map((p) => [p.name, p.start_sec, p.end_sec])).toEqual([
      ["Free", 0, 2.11],
      ["After", 2.11, 3.11],
    ]);
  });

  it("recognises host_pinned and collection-qualified names as free", () => {
    for (const strategy of ["host_pinned", "ansible.builtin.free"]) {
      const r = new Run().playbook().play("p", { strategy });
      const t = r.task("t");
      r.at(1).task("t", { uuid: t });
      r.at(1).result(t, "a", "ok").result(t, "b", "ok");
      r.stats([]);
      expect(timelineFromEvents(r.events).tasks, strategy).toHaveLength(1);
    }
  });

  it("stretches a task to the end of its play when a host started it and never answered", () => {
    const r = new Run().playbook().play("Free", { strategy: "free" });
    const t = r.task("wait");
    r.task("wait", { uuid: t });
    r.at(1).result(t, "n1", "ok");
    r.at(4).retry(t, "n2");
    r.at(1).play("Next");
    r.task("next");
    r.at(1).stats([]);
    const tl = timelineFromEvents(r.events);
    expect(spans(tl.tasks)).toEqual([
      ["wait", 0, 6],
      ["next", 6, 7],
    ]);
    expect(tl.tasks[0]!.hosts.map((h) => h.host)).toEqual(["n1"]);
  });
});

describe("timelineFromEvents: killed and empty runs", () => {
  it("ends the last task at the run's last event and has no total without a playbook_end", () => {
    const r = new Run().playbook().play("p");
    const a = r.task("a");
    r.at(1).result(a, "n1", "ok");
    const b = r.task("b");
    r.at(2).result(b, "n1", "ok");
    r.at(5); // killed while n2 was still on b: no more events
    const tl = timelineFromEvents(r.events);
    expect(spans(tl.tasks)).toEqual([
      ["a", 0, 1],
      ["b", 1, 3],
    ]);
    expect(tl.total_sec).toBeNull();
    expect(tl.plays).toEqual([{ number: 1, name: "p", start_sec: 0, end_sec: 3 }]);
  });

  it("has no total when a later playbook was killed after an earlier one ended", () => {
    const r = new Run().playbook("a.yml").play("p");
    r.task("a");
    r.at(1).stats([], "a.yml");
    r.playbook("b.yml").play("q");
    r.at(0.5).task("b");
    r.at(2);
    expect(timelineFromEvents(r.events).total_sec).toBeNull();
  });

  it("ends a free task that a host never finished at the run's last event", () => {
    const r = new Run().playbook().play("Free", { strategy: "free" });
    const t = r.task("long");
    r.task("long", { uuid: t });
    r.at(1).result(t, "n1", "ok");
    r.at(2).retry(t, "n2");
    const tl = timelineFromEvents(r.events);
    expect(spans(tl.tasks)).toEqual([["long", 0, 3]]);
    expect(tl.total_sec).toBeNull();
  });

  it("has no time axis when no task started", () => {
    const r = new Run().playbook().play("Nothing here");
    r.events.push({ v: 1, type: "no_hosts_matched", ts: r.t });
    r.at(1).stats([]);
    expect(timelineFromEvents(r.events)).toEqual({ started_at: null, total_sec: null, plays: [], tasks: [] });
    expect(timelineFromEvents([])).toEqual({ started_at: null, total_sec: null, plays: [], tasks: [] });
  });

  it("ignores results of a task it never saw start", () => {
    const r = new Run().playbook().play("p");
    r.result("uuid-unknown", "n1", "failed");
    const a = r.task("a");
    r.at(1).result(a, "n1", "ok");
    r.stats([]);
    expect(timelineFromEvents(r.events).tasks.map((t) => t.task)).toEqual(["a"]);
  });
});
