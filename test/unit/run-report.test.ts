/**
 * The report across runs (server/jobs/report.ts), its pure parts: the matrix from recaps and
 * run summaries (a run without events matched by task name), the query's job list, and the
 * Markdown and CSV documents with hostile names in them.
 */
import { describe, expect, it } from "vitest";
import type { TaskChanges } from "../../server/recap/idempotence";
import type { Recap } from "../../server/recap/types";
import { hostRow, recap } from "../support/recap-rows";
import { reportQuerySchema } from "../../server/api/contracts/forms";
import { zodMessage } from "../../server/api/errors";
import { buildRunReport, checkReportJobs, describeOptions, reportCsv, reportMarkdown, type ReportRunInput } from "../../server/jobs/report";
import type { RunOptionsView } from "../../server/jobs/run-kind";
import { artifactDifferences } from "../../server/jobs/compare";

const OPTIONS: RunOptionsView = {
  playbook: "site.yml",
  tags: [],
  skipTags: [],
  limit: null,
  check: false,
  diff: false,
  verbosity: 0,
  environment: null,
  valuesHash: "0".repeat(64),
};

const task = (play: string, name: string, ran: boolean, changed: string[], sec: number): TaskChanges => ({
  play,
  play_occurrence: 1,
  task: name,
  ran,
  changed_hosts: changed,
  sec,
});

function run(
  id: number,
  r: Recap,
  tasks: TaskChanges[] | null,
  artifacts: Record<string, unknown> = {},
  options = OPTIONS,
): ReportRunInput {
  return {
    job: {
      id,
      status: "success",
      finishedAt: `2026-12-07T10:0${id}:00.000Z`,
      options,
      run: describeOptions(options),
      playbook_sec: r.playbook_sec ?? r.elapsed_sec,
    },
    recap: r,
    summary: tasks === null ? null : { tasks, artifacts: { artifacts, hosts: {}, error: null } },
    // A run without events knows no artifacts here (as when retention kept none).
    artifacts: tasks === null ? null : { artifacts, hosts: {}, error: null },
  };
}

describe("buildRunReport", () => {
  const runs = [
    run(
      7,
      recap({ hosts: [hostRow("web1", { ok: 1, changed: 1 }), hostRow("db1", { ok: 1 })], playbook_sec: 12.5 }),
      [task("web", "Install", true, ["web1"], 10), task("web", "Restart", false, [], 0)],
      { version: "1.2", nodes: ["a"] },
    ),
    run(
      3,
      recap({ hosts: [hostRow("web1", { ok: 1 })], playbook_sec: 4 }),
      [task("web", "Install", true, [], 3.25), task("web", "Restart", true, [], 0.5), task("db", "Backup", true, [], 1)],
      { version: "1.3" },
      { ...OPTIONS, tags: ["web"] },
    ),
    // Its output is gone: only the text recap, which names changed tasks and profile_tasks' timings.
    run(
      5,
      recap({
        hosts: [hostRow("web1", { ok: 1, changed: 2 })],
        elapsed_sec: 9,
        changed_tasks: ["Install", "Old task"],
        slowest_tasks: [{ task: "Install", seconds: 6 }],
      }),
      null,
    ),
  ];
  const report = buildRunReport(runs);

  it("keeps the runs in the order given", () => {
    expect(report.jobs.map((j) => [j.id, j.playbook_sec])).toEqual([
      [7, 12.5],
      [3, 4],
      [5, 9],
    ]);
  });

  it("gives each task per run: changed, ran unchanged, or null, with its seconds; a run without events by name", () => {
    expect(report.tasks).toEqual([
      { play: "web", task: "Install", changed: [true, false, true], sec: [10, 3.25, 6] },
      { play: "web", task: "Restart", changed: [null, false, null], sec: [null, 0.5, null] },
      { play: "db", task: "Backup", changed: [null, false, null], sec: [null, 1, null] },
      { play: null, task: "Old task", changed: [null, null, true], sec: [null, null, null] },
    ]);
  });

  it("gives each host its counts per run, null where it was not in the run, hosts by name", () => {
    expect(report.hosts.map((h) => [h.host, h.runs.map((r) => r?.changed ?? null)])).toEqual([
      ["db1", [0, null, null]],
      ["web1", [1, 0, 2]],
    ]);
  });

  it("gives each artifact key its value per run, null where the run set none or is not known", () => {
    expect(report.artifacts).toEqual([
      { key: "version", values: ["1.2", "1.3", null] },
      { key: "nodes", values: [["a"], null, null] },
    ]);
  });
});

describe("the report's jobs parameter", () => {
  const parse = (jobs: string) => {
    const parsed = reportQuerySchema.safeParse({ jobs });
    if (!parsed.success) throw new Error(zodMessage(parsed.error));
    return checkReportJobs(parsed.data.jobs);
  };
  it("reads 2 to 20 distinct ids", () => {
    expect(parse("12, 13,20")).toEqual([12, 13, 20]);
    expect(() => parse("12")).toThrow("jobs: give 2 to 20 jobs, not 1");
    expect(() => parse(Array.from({ length: 21 }, (_, i) => i + 1).join(","))).toThrow("jobs: at most 20 ids, got 21");
    expect(() => parse("12,12")).toThrow("jobs: job 12 is named twice");
    expect(() => parse("12,,13")).toThrow('jobs: "" is not a job id');
    expect(() => parse("")).toThrow("jobs: is required (comma-separated job ids, e.g. jobs=12,15)");
    for (const bad of ["-1", "0", "1e3", "0x10", "012", "2147483648", "12abc"])
      expect(() => parse(`5,${bad}`)).toThrow(`jobs: "${bad}" is not a job id (decimal digits, from 1 to 2147483647)`);
  });
});

describe("the documents", () => {
  const hostile = [
    run(1, recap({ hosts: [hostRow("=cmd|' /C calc'!A0", { ok: 1 })] }), [task("p|q", "a\nb <script>", true, ["x"], 1)], {
      "k|ey": "v`al|ue",
    }),
    run(2, recap(), null, {}, { ...OPTIONS, tags: ["a", "b"], check: true, verbosity: 2, environment: "k8s" }),
  ];
  const report = { form: "lab", ...buildRunReport(hostile) };

  it("says how each run was run", () => {
    expect(describeOptions(OPTIONS)).toBe("full run");
    expect(describeOptions(hostile[1]!.job.options)).toBe("--tags a,b --check -vv, environment k8s");
    expect(describeOptions(null)).toBe("not recorded");
  });

  it("writes Markdown tables whose cells cannot break the table or carry HTML", () => {
    const md = reportMarkdown(report);
    expect(md).toContain("| Run | #1 | #2 |");
    expect(md).toContain("| p\\|q | a b &lt;script&gt; | **changed** 1 s | – |");
    expect(md).toContain("| =cmd\\|' /C calc'!A0 | ok=1 changed=0 unreachable=0 failed=0 | – |");
    expect(md).toContain('| k\\|ey | `` "v`al\\u007cue" `` | – |');
    for (const line of md.split("\n").filter((l) => l.startsWith("|"))) expect(line.split(/(?<!\\)\|/).length).toBeGreaterThanOrEqual(4);
  });

  it("writes CSV in long form, formula-safe", () => {
    const rows = reportCsv(report).split("\r\n");
    expect(rows[0]).toBe("section,play,name,field,job_1,job_2");
    // Starts with "-": kept as text by a spreadsheet, not run as a formula.
    expect(rows).toContain(`job,,,options,full run,"'--tags a,b --check -vv, environment k8s"`);
    expect(rows).toContain('task,p|q,"a\nb <script>",changed,true,');
    expect(rows).toContain("host,,'=cmd|' /C calc'!A0,ok,1,");
    expect(rows).toContain('artifact,,k|ey,value,"""v`al|ue""",');
  });
});

describe("artifactDifferences (compare)", () => {
  it("lists the keys whose values differ, deeply, the first run's first, null for a key a run did not set", () => {
    const first = { same: { a: [1, 2] }, changed: "1.2", gone: true };
    const second = { added: 3, changed: "1.3", same: { a: [1, 2] } };
    expect(artifactDifferences(first, second)).toEqual([
      { key: "changed", first: "1.2", second: "1.3" },
      { key: "gone", first: true, second: null },
      { key: "added", first: null, second: 3 },
    ]);
    expect(artifactDifferences(first, { ...first })).toEqual([]);
  });
});
