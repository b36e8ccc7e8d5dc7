import { describe, expect, it } from "vitest";
import type { PlayformEvent } from "../../../server/recap/events";
import {
  csvField,
  idempotenceCsv,
  idempotenceReport,
  taskChangesFromEvents,
  type IdempotenceRunInput,
  type TaskChanges,
} from "../../../server/recap/idempotence";
import type { Recap, RecapStatus } from "../../../server/recap/types";
import { recap } from "../../support/recap-rows";

type Outcome = "ok" | "changed" | "skipped" | "failed";

/** A run's events: plays of tasks, each task with an outcome per host. */
function events(plays: { name: string; batch?: number; tasks: [string, Record<string, Outcome>][] }[]): PlayformEvent[] {
  const out: PlayformEvent[] = [{ v: 1, type: "playbook_start", ts: 1, playbook: "site.yml" }];
  let ts = 1;
  let n = 0;
  for (const play of plays) {
    out.push({ v: 1, type: "play_start", ts: (ts += 1), name: play.name, batch: play.batch ?? 1, strategy: "linear" });
    for (const [task, hosts] of play.tasks) {
      const uuid = `t${++n}`;
      out.push({ v: 1, type: "task_start", ts: (ts += 1), task: uuid, name: task, kind: "task" });
      for (const [host, outcome] of Object.entries(hosts)) {
        const status = outcome === "changed" ? "ok" : outcome;
        out.push({ v: 1, type: "task_result", ts: (ts += 1), task: uuid, host, status, changed: outcome === "changed" });
      }
    }
  }
  out.push({ v: 1, type: "stats", ts: (ts += 1), hosts: [] }, { v: 1, type: "playbook_end", ts: ts + 2, playbook: "site.yml" });
  return out;
}

function recapOf(status: RecapStatus, changed_tasks: string[] = []): Recap {
  return recap({ status, changed_tasks });
}

function run(id: number, tasks: TaskChanges[] | null, status: RecapStatus = "successful", changed: string[] = []): IdempotenceRunInput {
  return { id: String(id), finishedAt: `2026-11-30T10:0${id}:00.000Z`, recap: recapOf(status, changed), tasks };
}

const PLAYBOOK = (first: boolean) =>
  taskChangesFromEvents(
    events([
      {
        name: "web",
        tasks: [
          ["Always", { a: "changed", b: "changed" }],
          ["Once", { a: first ? "changed" : "ok", b: first ? "changed" : "ok" }],
          ["Only on b", { a: "ok", b: "changed" }],
          ["Never", { a: "ok", b: "ok" }],
          ["Skipped", { a: "skipped", b: "skipped" }],
        ],
      },
    ]),
  );

describe("taskChangesFromEvents", () => {
  it("gives each task its play, whether it ran, the hosts on which it changed and its time", () => {
    expect(PLAYBOOK(false)).toEqual([
      { play: "web", play_occurrence: 1, task: "Always", ran: true, changed_hosts: ["a", "b"], sec: 3 },
      { play: "web", play_occurrence: 1, task: "Once", ran: true, changed_hosts: [], sec: 3 },
      { play: "web", play_occurrence: 1, task: "Only on b", ran: true, changed_hosts: ["b"], sec: 3 },
      { play: "web", play_occurrence: 1, task: "Never", ran: true, changed_hosts: [], sec: 3 },
      { play: "web", play_occurrence: 1, task: "Skipped", ran: false, changed_hosts: [], sec: 3 },
    ]);
  });

  it("keeps tasks of the same name in two plays apart, also when the plays share a name; merges serial batches", () => {
    const tasks = taskChangesFromEvents(
      events([
        { name: "db", tasks: [["restart", { a: "changed" }]] },
        { name: "web", tasks: [["restart", { b: "ok" }]] },
        { name: "web", batch: 2, tasks: [["restart", { c: "changed" }]] },
        { name: "db", tasks: [["restart", { a: "ok" }]] },
      ]),
    );
    // A task takes from its start to the next one's: 2 s each here, a serial play's batches added up.
    expect(tasks.map((t) => [t.play, t.play_occurrence, t.task, t.changed_hosts, t.sec])).toEqual([
      ["db", 1, "restart", ["a"], 2],
      ["web", 1, "restart", ["c"], 4],
      ["db", 2, "restart", [], 2],
    ]);
  });

  it("counts a loop with a changed item as changed on that host", () => {
    const ev = events([{ name: "p", tasks: [] }]);
    const stats = ev.splice(-2);
    ev.push(
      { v: 1, type: "task_start", ts: 10, task: "L", name: "Loop", kind: "task" },
      { v: 1, type: "item_result", ts: 11, task: "L", host: "h", status: "ok", changed: false, item: "1" },
      { v: 1, type: "item_result", ts: 12, task: "L", host: "h", status: "ok", changed: true, item: "2" },
      { v: 1, type: "task_result", ts: 13, task: "L", host: "h", status: "ok", changed: false, loop: true },
      ...stats,
    );
    expect(taskChangesFromEvents(ev)).toEqual([{ play: "p", play_occurrence: 1, task: "Loop", ran: true, changed_hosts: ["h"], sec: 3 }]);
  });
});

describe("idempotenceReport", () => {
  const runs = [run(1, PLAYBOOK(true)), run(2, PLAYBOOK(false)), run(3, PLAYBOOK(false))];

  it("counts per task the runs it ran and changed in, per host, the first and last run, sorted worst first", () => {
    const report = idempotenceReport(runs);
    expect(report.complete_runs).toBe(3);
    expect(report.skipped_incomplete).toBe(0);
    expect(report.runs.map((r) => [r.id, r.source])).toEqual([
      ["1", "events"],
      ["2", "events"],
      ["3", "events"],
    ]);
    expect(report.tasks_never_changed).toBe(1); // "Never"; "Skipped" never ran
    expect(report.tasks.map((t) => [t.task, t.runs_changed, t.runs_ran, t.change_rate, t.changed_in_latest])).toEqual([
      ["Always", 3, 3, 1, true],
      ["Only on b", 3, 3, 1, true],
      ["Once", 1, 3, 1 / 3, false],
    ]);
    const [always, onlyB, once] = report.tasks;
    expect(always!.hosts).toEqual([
      { host: "a", runs_changed: 3 },
      { host: "b", runs_changed: 3 },
    ]);
    expect(onlyB!.hosts).toEqual([{ host: "b", runs_changed: 3 }]);
    expect(always!.first_changed_run).toEqual({ id: "1", finished_at: "2026-11-30T10:01:00.000Z" });
    expect(always!.last_changed_run).toEqual({ id: "3", finished_at: "2026-11-30T10:03:00.000Z" });
    expect(once!.first_changed_run.id).toBe("1");
    expect(once!.last_changed_run.id).toBe("1");
    expect(always!.hosts_unknown_runs).toBe(0);
  });

  it("sorts by runs changed, then rate, then the latest run's task order", () => {
    const t = (task: string, ran: boolean, hosts: string[]): TaskChanges => ({
      play: "p",
      play_occurrence: 1,
      task,
      ran,
      changed_hosts: hosts,
      sec: 1,
    });
    const report = idempotenceReport([
      run(1, [t("rare", true, []), t("half", true, ["h"]), t("z", true, ["h"]), t("y", true, ["h"])]),
      run(2, [t("rare", true, ["h"]), t("half", true, ["h"]), t("z", false, []), t("y", true, ["h"])]),
      run(3, [t("y", true, ["h"]), t("z", true, ["h"]), t("half", true, []), t("rare", true, [])]),
    ]);
    // y 3/3; z 2/2 before half 2/3 (same count, higher rate); rare 1/3.
    expect(report.tasks.map((x) => [x.task, x.runs_changed, x.runs_ran])).toEqual([
      ["y", 3, 3],
      ["z", 2, 2],
      ["half", 2, 3],
      ["rare", 1, 3],
    ]);
    // Equal counts and rates: the latest run's order decides.
    const tie = idempotenceReport([run(1, [t("b", true, ["h"]), t("a", true, ["h"])]), run(2, [t("a", true, ["h"]), t("b", true, ["h"])])]);
    expect(tie.tasks.map((x) => x.task)).toEqual(["a", "b"]);
  });

  it("skips incomplete runs and counts them apart: they never feed a verdict", () => {
    const report = idempotenceReport([
      run(1, PLAYBOOK(true)),
      run(2, PLAYBOOK(true), "incomplete"),
      run(3, PLAYBOOK(false), "failed"),
      run(4, PLAYBOOK(true), "plan"),
    ]);
    expect(report.complete_runs).toBe(2);
    expect(report.skipped_incomplete).toBe(2);
    expect(report.runs.map((r) => r.id)).toEqual(["1", "3"]);
    const once = report.tasks.find((x) => x.task === "Once")!;
    expect([once.runs_changed, once.runs_ran, once.last_changed_run.id, once.changed_in_latest]).toEqual([1, 2, "1", false]);
  });

  it("skips a run whose job was aborted or abandoned even when its recap reached the PLAY RECAP", () => {
    const aborted = { ...run(2, PLAYBOOK(true)), jobStatus: "aborted" };
    const report = idempotenceReport([
      { ...run(1, PLAYBOOK(true)), jobStatus: "success" },
      aborted,
      { ...run(3, PLAYBOOK(false)), jobStatus: "failed" },
    ]);
    expect(report.runs.map((r) => r.id)).toEqual(["1", "3"]);
    expect(report.skipped_incomplete).toBe(1);
    expect(report.tasks.find((x) => x.task === "Once")!.runs_changed).toBe(1);
  });

  it("keeps tasks of the same name in two plays apart", () => {
    const twoPlays = (changed: boolean) =>
      taskChangesFromEvents(
        events([
          { name: "db", tasks: [["restart", { a: changed ? "changed" : "ok" }]] },
          { name: "web", tasks: [["restart", { b: "changed" }]] },
        ]),
      );
    const report = idempotenceReport([run(1, twoPlays(true)), run(2, twoPlays(false))]);
    expect(report.tasks.map((x) => [x.play, x.task, x.runs_changed, x.hosts])).toEqual([
      ["web", "restart", 2, [{ host: "b", runs_changed: 2 }]],
      ["db", "restart", 1, [{ host: "a", runs_changed: 1 }]],
    ]);
  });

  it("falls back on the recap's changed_tasks for a run without events: no hosts known", () => {
    const report = idempotenceReport([run(1, null, "successful", ["Always", "Legacy"]), run(2, PLAYBOOK(false))]);
    expect(report.runs.map((r) => r.source)).toEqual(["recap", "events"]);
    const always = report.tasks.find((x) => x.task === "Always")!;
    expect([always.play, always.runs_changed, always.runs_ran, always.hosts_unknown_runs]).toEqual(["web", 2, 2, 1]);
    expect(always.hosts).toEqual([
      { host: "a", runs_changed: 1 },
      { host: "b", runs_changed: 1 },
    ]);
    const legacy = report.tasks.find((x) => x.task === "Legacy")!;
    expect([legacy.play, legacy.hosts, legacy.runs_changed, legacy.runs_ran, legacy.changed_in_latest]).toEqual([null, null, 1, 1, false]);
  });

  it("says which environments the runs ran in, when more than one, and each run's", () => {
    const inEnv = (id: number, environment: string | null) => ({ ...run(id, PLAYBOOK(id === 1)), environment });
    const mixed = idempotenceReport([inEnv(1, "default (ansible-core 2.14.18)"), inEnv(2, null), inEnv(3, "k8s (ansible-core 2.18.1)")]);
    expect(mixed.environments).toEqual(["default (ansible-core 2.14.18)", "k8s (ansible-core 2.18.1)"]);
    expect(mixed.runs.map((r) => r.environment)).toEqual(["default (ansible-core 2.14.18)", null, "k8s (ansible-core 2.18.1)"]);
    const same = idempotenceReport([inEnv(1, "k8s (ansible-core 2.18.1)"), inEnv(2, "k8s (ansible-core 2.18.1)")]);
    expect(same.environments).toEqual([]);
    // An incomplete run in another environment is not among the runs counted.
    expect(idempotenceReport([inEnv(1, "a"), { ...run(2, PLAYBOOK(false), "incomplete"), environment: "b" }]).environments).toEqual([]);
  });

  it("lists nothing with no complete run", () => {
    expect(idempotenceReport([run(1, PLAYBOOK(true), "incomplete")])).toEqual({
      runs: [],
      environments: [],
      complete_runs: 0,
      skipped_incomplete: 1,
      tasks_never_changed: 0,
      tasks: [],
    });
  });
});

describe("idempotenceCsv", () => {
  it("quotes commas, quotes and newlines, joins hosts as host:count", () => {
    expect(csvField('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csvField("plain")).toBe("plain");
    expect(csvField(null)).toBe("");
    // A name a spreadsheet would run as a formula is written as text; numbers keep their sign.
    expect(csvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvField("-1+2")).toBe("'-1+2");
    expect(csvField(-1)).toBe("-1");
    const tasks = (first: boolean): TaskChanges[] => [
      { play: "p, q", play_occurrence: 1, task: 'Write "x", y\nz', ran: true, changed_hosts: first ? ["h1", "h2"] : ["h2"], sec: 1 },
    ];
    const csv = idempotenceCsv(idempotenceReport([run(1, tasks(true)), run(2, tasks(false)), run(3, null, "successful", ["Old"])]));
    expect(csv.split("\r\n")).toEqual([
      "play,play_occurrence,task,runs_changed,runs_ran,change_rate,hosts,first_changed_job,first_changed_at,last_changed_job,last_changed_at,changed_in_latest",
      '"p, q",1,"Write ""x"", y\nz",2,3,0.6667,h2:2;h1:1,1,2026-11-30T10:01:00.000Z,2,2026-11-30T10:02:00.000Z,false',
      ",,Old,1,1,1,,3,2026-11-30T10:03:00.000Z,3,2026-11-30T10:03:00.000Z,true",
      "",
    ]);
  });
});
