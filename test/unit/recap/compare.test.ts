import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareRecaps, trendAcrossRuns } from "../../../server/recap/compare";
import { parseRecapText } from "../../../server/recap/parse-text";
import type { Recap } from "../../../server/recap/types";
import { hostRow as row, recap } from "../../support/recap-rows";

const ROOT = join(import.meta.dirname, "../../fixtures/recap");
const fixture = (name: string): Recap => parseRecapText(readFileSync(join(ROOT, name, "log.txt"), "utf8"));

describe("compareRecaps", () => {
  // The same site.yml run for real (roles_handlers) and then with --check (check_mode).
  const real = fixture("roles_handlers");
  const check = fixture("check_mode");
  const cmp = compareRecaps(real, check);

  it("splits changed tasks into both / only first / only second, in each run's order", () => {
    expect(cmp.changed_only_first).toEqual([
      "common : restart motd service",
      "webserver : Warm up cache",
      "webserver : reload webserver",
      "database : Run migrations",
      "database : restart database",
    ]);
    expect(cmp.changed_only_second).toEqual([]);
    expect(cmp.changed_in_both).toHaveLength(real.changed_tasks.length - 5);
    expect(cmp.changed_in_both[0]).toBe("common : Create host scratch directory");
  });

  it("gives per-host counts of both runs and their delta (second minus first)", () => {
    const node3 = cmp.hosts.find((h) => h.host === "node3");
    expect(node3?.a).toMatchObject({ ok: 11, changed: 10, skipped: 1 });
    expect(node3?.b).toMatchObject({ ok: 7, changed: 7, skipped: 5 });
    expect(node3?.delta).toEqual({ ok: -4, changed: -3, unreachable: 0, failed: 0, skipped: 4, rescued: 0, ignored: 0 });
  });

  it("gives elapsed and per-task timing deltas rounded to the printed precision", () => {
    expect(cmp.elapsed).toEqual({ a: 41, b: 27, delta_sec: -14 });
    expect(cmp.tasks[0]).toEqual({ task: "webserver : Write vhost configs", a_sec: 8.62, b_sec: 3.19, delta_sec: -5.43 });
    expect(cmp.tasks).toHaveLength(17);
  });

  it("compares an incomplete run's hosts by what it printed so far (partial_hosts), not as hosts missing from it", () => {
    const complete = recap({ hosts: [row("web1", { ok: 3, changed: 1 }), row("web2", { ok: 3, changed: 1 })] });
    const stopped = recap({ status: "incomplete", hosts: [], partial_hosts: [row("web1", { ok: 2, changed: 1 })] });
    const cmp = compareRecaps(complete, stopped);
    expect(cmp.incomplete_runs).toEqual(["second"]);
    expect(cmp.hosts).toEqual([
      {
        host: "web1",
        a: expect.objectContaining({ ok: 3 }),
        b: expect.objectContaining({ ok: 2, changed: 1 }),
        delta: expect.objectContaining({ ok: -1, changed: 0 }),
      },
      { host: "web2", a: expect.objectContaining({ ok: 3 }), b: null, delta: expect.objectContaining({ ok: -3, changed: -1 }) },
    ]);
    // Without partial rows (the CLI's recap of a killed log), the PLAY RECAP rows it has: none.
    expect(compareRecaps(complete, recap({ status: "incomplete", hosts: [] })).hosts.every((h) => h.b === null)).toBe(true);
  });

  it("compares the playbook time measured from events to the millisecond, only when both runs have it", () => {
    expect(cmp.playbook).toBeNull(); // recaps from text: whole seconds only
    const a = recap({ elapsed_sec: 3, playbook_sec: 3.312 });
    const b = recap({ elapsed_sec: 3, playbook_sec: 3.705 });
    expect(compareRecaps(a, b).playbook).toEqual({ a_sec: 3.312, b_sec: 3.705, delta_sec: 0.393 });
    // A killed run's events have no playbook end: null, like a recap without events.
    expect(compareRecaps(a, recap({ playbook_sec: null })).playbook).toBeNull();
    expect(compareRecaps(a, recap({})).playbook).toBeNull();
  });

  it("handles hosts and tasks present in one run only, and duplicate task names", () => {
    const a = recap({
      hosts: [row("b", { ok: 2 }), row("c", { ok: 1 })],
      elapsed_sec: 10,
      slowest_tasks: [
        { task: "dup", seconds: 3 },
        { task: "only a", seconds: 2 },
        { task: "dup", seconds: 1 },
      ],
      changed_tasks: ["x", "y"],
    });
    const b = recap({
      hosts: [row("a", { failed: 1 }), row("b", { ok: 3 })],
      slowest_tasks: [
        { task: "dup", seconds: 1.2 },
        { task: "only b", seconds: 0.5 },
      ],
      changed_tasks: ["z", "y"],
    });
    const c = compareRecaps(a, b);
    expect(c.changed_in_both).toEqual(["y"]);
    expect(c.changed_only_first).toEqual(["x"]);
    expect(c.changed_only_second).toEqual(["z"]);
    expect(c.hosts.map((h) => [h.host, h.a?.ok ?? null, h.b?.ok ?? null, h.delta.ok, h.delta.failed])).toEqual([
      ["a", null, 0, 0, 1],
      ["b", 2, 3, 1, 0],
      ["c", 1, null, -1, 0],
    ]);
    expect(c.elapsed).toEqual({ a: 10, b: null, delta_sec: null });
    expect(c.tasks).toEqual([
      { task: "dup", a_sec: 3, b_sec: 1.2, delta_sec: -1.8 },
      { task: "only a", a_sec: 2, b_sec: null, delta_sec: null },
      { task: "dup", a_sec: 1, b_sec: null, delta_sec: null },
      { task: "only b", a_sec: null, b_sec: 0.5, delta_sec: null },
    ]);
  });
});

describe("trendAcrossRuns", () => {
  const runs = [
    {
      id: "r1",
      finishedAt: "2026-11-30T06:00:00Z",
      recap: recap({
        changed_tasks: ["stamp", "install", "restart"],
        elapsed_sec: 60,
        hosts: [row("n1"), row("n2", { failed: 1 })],
        status: "failed",
      }),
    },
    {
      id: "r2",
      recap: recap({
        changed_tasks: ["restart", "stamp"],
        elapsed_sec: 30,
        hosts: [row("n1"), row("n2", { unreachable: 1 })],
        status: "failed",
      }),
    },
    { id: "r3", recap: recap({ changed_tasks: [], status: "incomplete" }) },
    {
      id: "r4",
      finishedAt: "2026-11-30T08:00:00Z",
      recap: recap({ changed_tasks: ["stamp", "restart"], elapsed_sec: 28, hosts: [row("n1"), row("n2"), row("n3")] }),
    },
  ];

  it("finds tasks changed in every completed run, in the first run's order", () => {
    const t = trendAcrossRuns(runs);
    expect(t.completed_runs).toBe(3);
    expect(t.never_idempotent).toEqual(["stamp", "restart"]);
  });

  it("lists the duration of every completed run in the order given, never an incomplete one", () => {
    expect(trendAcrossRuns(runs).durations).toEqual([
      { id: "r1", finished_at: "2026-11-30T06:00:00Z", status: "failed", elapsed_sec: 60, job_sec: null },
      { id: "r2", finished_at: null, status: "failed", elapsed_sec: 30, job_sec: null },
      { id: "r4", finished_at: "2026-11-30T08:00:00Z", status: "successful", elapsed_sec: 28, job_sec: null },
    ]);
  });

  // Runs of 3.3-3.7 s all have elapsed_sec 3 (whole seconds), so the
  // trend's bars were equal. The job's launch-to-end time is measured to the millisecond.
  it("gives each run's launch-to-end time when its start is known", () => {
    const [d] = trendAcrossRuns([
      { id: "r1", startedAt: "2026-11-30T06:00:00.000Z", finishedAt: "2026-11-30T06:00:05.312Z", recap: recap({ elapsed_sec: 3 }) },
    ]).durations;
    expect(d).toMatchObject({ elapsed_sec: 3, job_sec: 5.312 });
  });

  it("counts runs with failed or unreachable > 0 per host, over the runs that included the host", () => {
    expect(trendAcrossRuns(runs).hosts).toEqual([
      { host: "n1", runs: 3, failed_runs: 0, failure_rate: 0 },
      { host: "n2", runs: 3, failed_runs: 2, failure_rate: 2 / 3 },
      { host: "n3", runs: 1, failed_runs: 0, failure_rate: 0 },
    ]);
  });

  it("says nothing about idempotence from fewer than two completed runs", () => {
    expect(trendAcrossRuns([]).never_idempotent).toEqual([]);
    expect(trendAcrossRuns(runs.slice(0, 1)).never_idempotent).toEqual([]);
  });
});

describe("an incomplete run never feeds an idempotence verdict", () => {
  const killed = recap({ status: "incomplete", changed_tasks: ["Quick check"], hosts: [] });
  const done = recap({ status: "successful", changed_tasks: [], hosts: [row("n1", { ok: 3 })] });

  it("says it cannot judge when either side is incomplete", () => {
    expect(compareRecaps(done, killed)).toMatchObject({ idempotence_judgeable: false, incomplete_runs: ["second"] });
    expect(compareRecaps(killed, done)).toMatchObject({ idempotence_judgeable: false, incomplete_runs: ["first"] });
    expect(compareRecaps(killed, killed)).toMatchObject({ idempotence_judgeable: false, incomplete_runs: ["first", "second"] });
  });

  it("judges two complete runs", () => {
    expect(compareRecaps(done, done)).toMatchObject({ idempotence_judgeable: true, incomplete_runs: [] });
  });

  it("the killed_sigint fixture is not judgeable against a complete run", () => {
    expect(compareRecaps(done, fixture("killed_sigint")).idempotence_judgeable).toBe(false);
  });

  it("trend durations skip incomplete runs", () => {
    const t = trendAcrossRuns([
      { id: "a", recap: done },
      { id: "b", recap: { ...killed, elapsed_sec: 4 } },
    ]);
    expect(t.durations.map((d) => d.id)).toEqual(["a"]);
  });
});
