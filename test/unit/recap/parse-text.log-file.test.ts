/**
 * Ansible's own log file (log_path / ANSIBLE_LOG_PATH): docs/recap.md, "Ansible's log file".
 * The recorded fixtures log_path_* are real files; these cases pin each rule on its own.
 */
import { describe, expect, it } from "vitest";
import { parseRecapText } from "../../../server/recap/parse-text";
import { banner, entry, log, logFile, logged, type LogFormat, pathLine, recapRow, stamp } from "./log-builder";

const RECAP = [banner("PLAY RECAP"), recapRow("node1", { ok: 3, changed: 2, ignored: 1 }), recapRow("node2", { ok: 3, changed: 1 })];

/** A small run as a log file holds it: no empty lines, the -v result of a debug on several lines. */
function run(opts: { format?: LogFormat; pid?: number } = {}): string {
  return logFile(
    [
      [0, banner("PLAY [Deploy]")],
      [0.02, banner("TASK [Write config]")],
      [0.5, "changed: [node1]"],
      [0.6, "ok: [node2]"],
      [1.5, banner("TASK [Probe]")],
      [2, 'fatal: [node1]: FAILED! => {"changed": false, "msg": "no"}'],
      [2, "...ignoring"],
      [2.1, "changed: [node2]"],
      [2.25, banner("TASK [Show]")],
      [2.3, 'ok: [node1] => {\n    "msg": "hello"\n}'],
      [2.31, 'ok: [node2] => {\n    "msg": "hello"\n}'],
      [2.4, banner("RUNNING HANDLER [Restart app]")],
      [3.99, "changed: [node1]"],
      [4.2, RECAP[0]!],
      [4.2, RECAP[1]!],
      [4.2, RECAP[2]!],
    ],
    opts,
  );
}

const RUN_RECAP = {
  plays: [{ number: 1, name: "Deploy", hosts: null }],
  hosts: [
    { host: "node1", ok: 3, changed: 2, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 1 },
    { host: "node2", ok: 3, changed: 1, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
  ],
  elapsed_sec: 4,
  slowest_tasks: [
    { task: "Restart app", seconds: 1.8 },
    { task: "Write config", seconds: 1.48 },
    { task: "Show", seconds: 0.15 },
    { task: "Probe", seconds: 0.75 },
  ].sort((a, b) => b.seconds - a.seconds),
  changed_tasks: ["Write config", "Probe", "Restart app"],
  ignored_failures: ["Probe"],
  failed_tasks: [],
  unreachable_hosts: [],
  status: "successful",
};

describe("Ansible's log file: the prefix", () => {
  it.each<LogFormat>(["2.9", "2.14", "2.17"])("reads the prefix that ansible-core %s writes", (format) => {
    expect(parseRecapText(run({ format }))).toEqual(RUN_RECAP);
  });

  it("reads 2.17's level names (WARNING for skipping lines, ERROR for fatal ones)", () => {
    const lines = [
      logged(0, banner("PLAY [p]"), { format: "2.17" }),
      logged(0, banner("TASK [t]"), { format: "2.17" }),
      logged(1, "skipping: [node2]", { format: "2.17", level: "WARNING" }),
      logged(1.5, 'fatal: [node1]: FAILED! => {"msg": "x"}', { format: "2.17", level: "ERROR" }),
      logged(2, banner("PLAY RECAP"), { format: "2.17" }),
      logged(2, recapRow("node1", { failed: 1 }), { format: "2.17" }),
      logged(2, recapRow("node2", { skipped: 1 }), { format: "2.17" }),
    ];
    const r = parseRecapText(log(lines));
    expect(r.failed_tasks).toEqual(["t"]);
    expect(r.status).toBe("failed");
    expect(r.hosts.map((h) => h.host)).toEqual(["node1", "node2"]);
  });

  it("gives the same recap as the terminal's text of the same run, but for the timings", () => {
    const terminal = log([
      "",
      banner("PLAY [Deploy]"),
      "",
      banner("TASK [Write config]"),
      "changed: [node1]",
      "ok: [node2]",
      "",
      banner("TASK [Probe]"),
      'fatal: [node1]: FAILED! => {"changed": false, "msg": "no"}',
      "...ignoring",
      "changed: [node2]",
      "",
      banner("TASK [Show]"),
      'ok: [node1] => {\n    "msg": "hello"\n}',
      'ok: [node2] => {\n    "msg": "hello"\n}',
      "",
      banner("RUNNING HANDLER [Restart app]"),
      "changed: [node1]",
      "",
      ...RECAP,
      "",
    ]);
    expect(parseRecapText(run())).toEqual({ ...parseRecapText(terminal), elapsed_sec: 4, slowest_tasks: RUN_RECAP.slowest_tasks });
  });

  it("never reads a line without the prefix as structure: it is the rest of a message", () => {
    const text = logFile([
      [0, banner("PLAY [p]")],
      [0, banner("TASK [Quiet]")],
      // the debug callback's raw STDOUT and a wrapped warning: lines at column 0 without prefix
      [1, `ok: [node1] => {}\n\nSTDOUT:\n\nchanged: [node1]\n${banner("TASK [Not a task]")}\nfatal: [node1]: FAILED! => {}\n...ignoring`],
      [1.5, "[WARNING]: a warning long enough to be wrapped onto the next line at\nchanged: [node1] which is still the warning"],
      [2, RECAP[0]!],
      [2, recapRow("node1", { ok: 1 })],
    ]);
    const r = parseRecapText(text);
    expect(r.changed_tasks).toEqual([]);
    expect(r.failed_tasks).toEqual([]);
    expect(r.ignored_failures).toEqual([]);
    expect(r.slowest_tasks).toEqual([{ task: "Quiet", seconds: 2 }]);
  });

  it("ignores what other loggers write to the file (n=paramiko.transport …) and their continuation lines", () => {
    const text = log([
      logged(0, banner("PLAY [p]")),
      logged(0, banner("TASK [t]")),
      logged(0.5, "changed: [node1]", { logger: "paramiko.transport" }),
      logged(0.6, `${banner("TASK [Not a task]")}`, { logger: "py.warnings" }),
      "changed: [node1]",
      logged(1, "ok: [node1]"),
      logged(2, RECAP[0]!),
      logged(2, recapRow("node1", { ok: 1 })),
    ]);
    const r = parseRecapText(text);
    expect(r.changed_tasks).toEqual([]);
    expect(r.slowest_tasks).toEqual([{ task: "t", seconds: 2 }]);
  });

  it("ignores lines before the first prefix (a file cut in the middle of a message)", () => {
    const text = `${log(['    "msg": "cut off"', "}", "changed: [node1]"])}${run()}`;
    expect(parseRecapText(text)).toEqual(RUN_RECAP);
  });

  it("is a terminal's text when structure came before any prefix (a command printed log lines)", () => {
    const text = log([
      banner("PLAY [p]"),
      banner("TASK [Cat the log]"),
      "ok: [node1] => {}",
      "",
      "STDOUT:",
      "",
      logged(1, banner("TASK [From the log]")),
      logged(1, "changed: [node1]"),
      ...[banner("PLAY RECAP"), recapRow("node1", { ok: 1 }), ""],
    ]);
    const r = parseRecapText(text);
    expect(r.changed_tasks).toEqual([]);
    expect(r.hosts.map((h) => h.host)).toEqual(["node1"]);
    expect(r.elapsed_sec).toBeNull();
  });

  it("ends the recap rows at the next prefixed line (the file has no empty line after them)", () => {
    const text = logFile([
      [0, banner("PLAY [p]")],
      [0, banner("TASK [t]")],
      [1, "ok: [node1]"],
      [2, banner("PLAY RECAP")],
      [2, recapRow("node1", { ok: 1 })],
      [2.1, "[WARNING]: something after the recap"],
      [2.2, "node9 : ok=5 changed=5"],
    ]);
    expect(parseRecapText(text).hosts.map((h) => h.host)).toEqual(["node1"]);
  });
});

describe("Ansible's log file: timings from the timestamps", () => {
  const timed = (entries: Array<[number, string]>, rows = [recapRow("node1", { ok: 1 })]): ReturnType<typeof parseRecapText> => {
    const last = entries[entries.length - 1]![0];
    return parseRecapText(logFile([...entries, [last, banner("PLAY RECAP")], ...rows.map((r): [number, string] => [last, r])]));
  };

  it("times a task from its banner to the next TASK / RUNNING HANDLER banner or PLAY RECAP; elapsed from the first PLAY", () => {
    const r = timed([
      [10, banner("PLAY [one]")],
      [10.5, banner("TASK [a]")],
      [12.004, banner("PLAY [two]")], // a PLAY banner does not end a task (profile_tasks: neither)
      [12.5, banner("TASK [b]")],
      [13, banner("CLEANUP TASK [c]")], // nor a CLEANUP TASK, which profile_tasks does not time
      [14, banner("RUNNING HANDLER [h]")],
      [20.999, "changed: [node1]"],
      [21.4, "ok: [node1]"],
    ]);
    expect(r.slowest_tasks).toEqual([
      { task: "h", seconds: 7.4 },
      { task: "a", seconds: 2 },
      { task: "b", seconds: 1.5 },
    ]);
    expect(r.elapsed_sec).toBe(11); // 21.4 - 10, floored
  });

  it("adds up the batches of a serial play and a handler run twice; keeps two tasks of the same name apart", () => {
    const r = timed([
      [0, banner("PLAY [Rolling]")],
      [0, banner("TASK [Drain]")],
      [1, banner("TASK [Drain]")], // another task with the same name
      [1.25, banner("RUNNING HANDLER [Reload]")],
      [1.5, banner("PLAY [Rolling]")], // batch 2
      [1.5, banner("TASK [Drain]")],
      [2.5, banner("TASK [Drain]")],
      [2.75, banner("RUNNING HANDLER [Reload]")],
      [3, banner("PLAY [Other]")],
      [3, banner("TASK [Drain]")], // another play: another task
      [3.1, "ok: [node1]"],
    ]);
    expect(r.slowest_tasks).toEqual([
      { task: "Drain", seconds: 2 },
      { task: "Drain", seconds: 0.5 },
      { task: "Reload", seconds: 0.5 }, // 1.25-1.5 and 2.75-3: a PLAY banner does not end it
      { task: "Drain", seconds: 0.1 },
    ]);
  });

  it("pairs a later batch's banner with a name templated per host with the task at its position in the first batch", () => {
    const r = timed([
      [0, banner("PLAY [Rolling]")],
      [0, banner("TASK [Drain node1]")], // name: Drain {{ inventory_hostname }}
      [1, banner("TASK [Upgrade]")],
      [3, banner("PLAY [Rolling]")],
      [3, banner("TASK [Drain node3]")],
      [3.5, banner("TASK [Upgrade]")],
      [4.5, "ok: [node1]"],
    ]);
    expect(r.slowest_tasks).toEqual([
      { task: "Upgrade", seconds: 3 },
      { task: "Drain node1", seconds: 1.5 },
    ]);
  });

  it("pairs batches by name first: a rescue that ran in one batch only does not shift the tasks after it", () => {
    const r = timed([
      [0, banner("PLAY [Rolling]")],
      [0, banner("TASK [Risky]")],
      [1, banner("TASK [Recover]")], // rescue: batch 1 failed
      [1.5, banner("TASK [After]")],
      [2, banner("PLAY [Rolling]")],
      [2, banner("TASK [Risky]")],
      [3, banner("TASK [After]")],
      [3.25, banner("TASK [Templated node3]")], // no name, no free position in the first batch: its own
      [3.5, "ok: [node1]"],
    ]);
    expect(r.slowest_tasks).toEqual([
      { task: "Risky", seconds: 2 },
      { task: "After", seconds: 0.75 },
      { task: "Recover", seconds: 0.5 },
      { task: "Templated node3", seconds: 0.25 },
    ]);
  });

  it("lists the 20 slowest, ties in the order the tasks started", () => {
    const entries: Array<[number, string]> = [[0, banner("PLAY [p]")]];
    for (let i = 0; i < 25; i++) entries.push([i, banner(`TASK [t${i}]`)]);
    entries.push([25, "ok: [node1]"]);
    const r = timed(entries);
    expect(r.slowest_tasks).toHaveLength(20);
    expect(r.slowest_tasks.slice(0, 3)).toEqual([
      { task: "t0", seconds: 1 },
      { task: "t1", seconds: 1 },
      { task: "t2", seconds: 1 },
    ]);
    expect(r.slowest_tasks.map((t) => t.task)).not.toContain("t24");
  });

  it("takes the figures at the last PLAY RECAP when several playbooks ran (a later killed one adds nothing)", () => {
    const text = logFile([
      [0, banner("PLAY [a]")],
      [0, banner("TASK [in a]")],
      [3, banner("PLAY RECAP")],
      [3, recapRow("node1", { ok: 1 })],
      [4, banner("PLAY [b]")],
      [4, banner("TASK [in b]")],
      [9, banner("TASK [killed in b]")],
      [9.5, "ok: [node1]"],
    ]);
    const r = parseRecapText(text);
    expect(r.status).toBe("incomplete");
    expect(r.elapsed_sec).toBe(3);
    expect(r.slowest_tasks).toEqual([{ task: "in a", seconds: 3 }]);
  });

  it("has no timings without a PLAY RECAP (a killed run), like profile_tasks", () => {
    const r = parseRecapText(
      logFile([
        [0, banner("PLAY [p]")],
        [0, banner("TASK [t]")],
        [5, banner("TASK [u]")],
        [6, "ok: [node1]"],
      ]),
    );
    expect(r).toMatchObject({ status: "incomplete", elapsed_sec: null, slowest_tasks: [] });
  });

  it("lets profile_tasks' figures win, its -vv path lines being continuation lines", () => {
    const text = logFile([
      [0, banner("PLAY [p]")],
      [0, banner("TASK [t]")],
      [0, stamp("0:00:00.020")],
      [60, "ok: [node1]"],
      [61, banner("PLAY RECAP")],
      [61, recapRow("node1", { ok: 1 })],
      [61, stamp("0:01:02.500")],
      [61, `${"=".repeat(79)} `],
      [61, `${entry("t", 61.02)}\n${pathLine("/work/site.yml:3")}`],
      [61, entry("gather", 0.5)],
    ]);
    const r = parseRecapText(text);
    expect(r.elapsed_sec).toBe(62);
    expect(r.slowest_tasks).toEqual([
      { task: "t", seconds: 61.02 },
      { task: "gather", seconds: 0.5 },
    ]);
  });
});

describe("Ansible's log file: several runs in one file", () => {
  /** One small run of process `pid`, its lines at `t0` + offsets. */
  const lines = (
    pid: number,
    t0: number,
    play: string,
    opts: { recap?: boolean; fail?: boolean } = {},
  ): Array<[number, string, number]> => [
    [t0, banner(`PLAY [${play}]`), pid],
    [t0 + 1, banner(`TASK [${play} task]`), pid],
    [t0 + 2, opts.fail ? 'fatal: [node1]: FAILED! => {"msg": "x"}' : "changed: [node1]", pid],
    ...(opts.recap === false
      ? []
      : ([
          [t0 + 3, banner("PLAY RECAP"), pid],
          [t0 + 3, recapRow("node1", opts.fail ? { failed: 1 } : { ok: 1, changed: 1 }), pid],
        ] as Array<[number, string, number]>)),
  ];
  const file = (entries: Array<[number, string, number]>): string => log(entries.map(([at, msg, pid]) => logged(at, msg, { pid })));

  it("reads the last run of a file that runs were appended to, whatever came before", () => {
    const r = parseRecapText(file([...lines(100, 0, "First", { fail: true }), ...lines(200, 10, "Second")]));
    expect(r.plays.map((p) => p.name)).toEqual(["Second"]);
    expect(r).toMatchObject({ status: "successful", changed_tasks: ["Second task"], failed_tasks: [], elapsed_sec: 3 });
  });

  it("takes the run that started its plays last, its lines apart from an interleaved run's", () => {
    const a = lines(100, 0, "Long");
    const b = lines(200, 0.5, "Short", { fail: true });
    const interleaved = [...a, ...b].sort((x, y) => x[0] - y[0]);
    // Long (pid 100) ends after Short (pid 200) started: still Short's run is the last one.
    const r = parseRecapText(file(interleaved));
    expect(r.plays.map((p) => p.name)).toEqual(["Short"]);
    expect(r).toMatchObject({
      status: "failed",
      failed_tasks: ["Short task"],
      changed_tasks: [],
      slowest_tasks: [{ task: "Short task", seconds: 2 }],
    });
  });

  it("ignores processes that print no play (ad-hoc commands) and reads a last run killed before its recap as incomplete", () => {
    const adhoc: Array<[number, string, number]> = [[20, "node1 | CHANGED | rc=0 >>\nchanged: [node1]", 300]];
    expect(parseRecapText(file([...lines(100, 0, "Run"), ...adhoc])).plays.map((p) => p.name)).toEqual(["Run"]);
    const r = parseRecapText(file([...lines(100, 0, "Run"), ...lines(200, 10, "Killed", { recap: false }), ...adhoc]));
    expect(r).toMatchObject({ status: "incomplete", plays: [{ number: 1, name: "Killed", hosts: null }], elapsed_sec: null });
  });

  it("keeps a run's continuation lines with the run of the prefixed line above them", () => {
    const text = log([
      logged(0, banner("PLAY [A]"), { pid: 1 }),
      logged(0, banner("TASK [a]"), { pid: 1 }),
      logged(1, banner("PLAY [B]"), { pid: 2 }),
      logged(1, banner("TASK [b]"), { pid: 2 }),
      logged(2, 'ok: [node1] => {\n    "msg": "from A"\n}', { pid: 1 }),
      logged(3, "changed: [node1]", { pid: 2 }),
      logged(4, banner("PLAY RECAP"), { pid: 2 }),
      logged(4, recapRow("node1", { ok: 1, changed: 1 }), { pid: 2 }),
    ]);
    expect(parseRecapText(text)).toMatchObject({ plays: [{ name: "B" }], changed_tasks: ["b"], status: "successful" });
  });

  it("reads the last of 2,000 appended runs", () => {
    const entries: Array<[number, string, number]> = [];
    for (let i = 0; i < 2000; i++) entries.push(...lines(1000 + i, i * 10, `Run ${i}`));
    const r = parseRecapText(file(entries));
    expect(r.plays.map((p) => p.name)).toEqual(["Run 1999"]);
  });
});
