/**
 * Targeted cases for rules of docs/recap.md that the recorded fixtures do not exercise.
 * Logs are built with the real banner / recap / profile_tasks geometry (log-builder.ts).
 */
import { describe, expect, it } from "vitest";
import { parseRecapText, RecapTextParser } from "../../../server/recap/parse-text";
import { banner, entry, log, pathLine, playRecap, recapRow, stamp, summary } from "./log-builder";

const ROWS_OK = [recapRow("node1", { ok: 2, changed: 1 }), recapRow("node2", { ok: 2, changed: 1 })];

describe("banners", () => {
  it("takes NAME between the first [ and the last ] before the stars, without [CHECK MODE]", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [Install [optional] packages] [CHECK MODE]"),
        banner("TASK [Copy [a] and [b]] [CHECK MODE]"),
        "changed: [node1]",
        banner("TASK [Name that is long enough to leave no room for a full row of stars at all]"),
        "changed: [node1]",
        ...playRecap([recapRow("node1", { ok: 2, changed: 2 })]),
      ]),
    );
    expect(r.plays).toEqual([{ number: 1, name: "Install [optional] packages", hosts: null }]);
    expect(r.changed_tasks).toEqual(["Copy [a] and [b]", "Name that is long enough to leave no room for a full row of stars at all"]);
  });

  it("accepts banners filled to a wider terminal and reads just *** after wide names", () => {
    const r = parseRecapText(
      log([
        `PLAY [Wide] ${"*".repeat(148)}`,
        "TASK [日本語のタスク名 : パッケージをインストールする] ***",
        "changed: [node1]",
        ...playRecap([recapRow("node1", { ok: 1, changed: 1 })]),
      ]),
    );
    expect(r.plays.map((p) => p.name)).toEqual(["Wide"]);
    expect(r.changed_tasks).toEqual(["日本語のタスク名 : パッケージをインストールする"]);
  });

  it("counts PLAY [PLAY RECAP] as a play and PLAY RECAP *** as the recap", () => {
    const r = parseRecapText(
      log([banner("PLAY [PLAY RECAP]"), banner("TASK [t]"), "ok: [node1]", ...playRecap([recapRow("node1", { ok: 1 })])]),
    );
    expect(r.plays).toEqual([{ number: 1, name: "PLAY RECAP", hosts: null }]);
    expect(r.hosts.map((h) => h.host)).toEqual(["node1"]);
    expect(r.status).toBe("successful");
  });

  it("gives each serial batch its own play entry and a PLAY banner clears the current task", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [Rolling]"),
        banner("TASK [Upgrade]"),
        "changed: [node1]",
        banner("PLAY [Rolling]"),
        "changed: [node2]", // no task banner yet in this batch: nothing to attribute it to
        banner("TASK [Upgrade]"),
        "ok: [node2]",
        banner("PLAY [node1,node2]"),
        "skipping: no hosts matched",
        ...playRecap(ROWS_OK),
      ]),
    );
    expect(r.plays).toEqual([
      { number: 1, name: "Rolling", hosts: null },
      { number: 2, name: "Rolling", hosts: null },
      { number: 3, name: "node1,node2", hosts: null },
    ]);
    expect(r.changed_tasks).toEqual(["Upgrade"]);
  });

  it("follows the most recent banner under strategy: free", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [Free]"),
        banner("TASK [A]"),
        "ok: [node1]",
        banner("TASK [B]"),
        "changed: [node1]",
        banner("TASK [A]"),
        "changed: [node2]",
        banner("CLEANUP TASK [Cleanup]"),
        "changed: [node2]",
        ...playRecap(ROWS_OK),
      ]),
    );
    expect(r.changed_tasks).toEqual(["B", "A", "Cleanup"]);
  });
});

describe("structure is column 0 only", () => {
  it("ignores indented payload, whatever it contains", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [Show]"),
        "ok: [node1] => {",
        '    "msg": [',
        "        changed: [node1]",
        `  ${banner("TASK [not a task]")}`,
        `    ${banner("PLAY RECAP")}`,
        "+changed: [node1]",
        "-fatal: [node1]: FAILED! => {}",
        "    ]",
        "}",
        ...playRecap([recapRow("node1", { ok: 1 })]),
      ]),
    );
    expect(r.changed_tasks).toEqual([]);
    expect(r.failed_tasks).toEqual([]);
    expect(r.hosts).toHaveLength(1);
  });

  it("drops result-looking continuation lines of wrapped diagnostics whose host is not in the recap", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [Real change]"),
        "[WARNING]: The output of the command contained something that looked like",
        "changed: [notahost] and it was wrapped at the terminal width by Ansible",
        "[DEPRECATION WARNING]: some option is deprecated, a wrapped line follows:",
        "fatal: [notahost]: FAILED! => this is still the warning text",
        "changed: [node1 -> localhost]",
        " [ERROR]: failed: [other] (item=x) => a wrapped error line",
        ...playRecap([recapRow("node1", { ok: 1, changed: 1 })]),
      ]),
    );
    expect(r.changed_tasks).toEqual(["Real change"]);
    expect(r.failed_tasks).toEqual([]);
  });

  it("keeps a task whose first changed line was a fake one, in order of its first real line", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [First]"),
        "changed: [ghost]",
        banner("TASK [Second]"),
        "changed: [node1]",
        banner("TASK [First]"),
        "changed: [node1]",
        ...playRecap([recapRow("node1", { ok: 2, changed: 2 })]),
      ]),
    );
    expect(r.changed_tasks).toEqual(["Second", "First"]);
  });

  it("counts every result line when there is no recap to check hosts against (killed run)", () => {
    const r = parseRecapText(log([banner("PLAY [p]"), banner("TASK [t]"), "changed: [anyhost]", " [ERROR]: User interrupted execution"]));
    expect(r.changed_tasks).toEqual(["t"]);
    expect(r.status).toBe("incomplete");
    expect(r.hosts).toEqual([]);
    expect(r.elapsed_sec).toBeNull();
  });

  it("strips ANSI colours before reading structure", () => {
    const red = (s: string): string => `\x1b[0;31m${s}\x1b[0m`;
    const r = parseRecapText(
      log([
        `\x1b[0;32m${banner("PLAY [Colour]")}\x1b[0m`,
        banner("TASK [Break]"),
        red("fatal: [node1]: FAILED! => {}"),
        `\x1b[0;32m    "indented": "changed: [node1]"\x1b[0m`,
        "",
        banner("PLAY RECAP"),
        `${red("node1")}                      : ok=0    changed=0    unreachable=0    ${red("failed=1   ")} skipped=0`,
      ]),
    );
    expect(r.plays.map((p) => p.name)).toEqual(["Colour"]);
    expect(r.failed_tasks).toEqual(["Break"]);
    expect(r.hosts).toEqual([{ host: "node1", ok: 0, changed: 0, unreachable: 0, failed: 1, skipped: 0, rescued: 0, ignored: 0 }]);
    expect(r.status).toBe("failed");
  });
});

describe("the debug callback's raw sections", () => {
  // ansible.posix.debug prints a result's stdout, stderr and msg after it, as is, at column 0:
  // `\n\nSTDOUT:\n\n<text>\n`. Only a banner as wide as Ansible prints them ends such text.
  const section = (header: string, ...text: string[]): string[] => ["", header, "", ...text];

  it("reads banner-like lines of a raw section as output, up to a real banner", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [Probe]"),
        'fatal: [node1]: FAILED! => {\n    "changed": true\n}',
        ...section("STDOUT:", "TASK [not a task] ***", "PLAY RECAP ***", "PLAY [not a play] ***"),
        ...section("MSG:", "non-zero return code"),
        "...ignoring",
        banner("TASK [Next]"),
        "changed: [node1]",
        ...playRecap([recapRow("node1", { ok: 2, changed: 2, ignored: 1 })]),
      ]),
    );
    expect(r.plays.map((p) => p.name)).toEqual(["p"]);
    expect(r.ignored_failures).toEqual(["Probe"]);
    expect(r.failed_tasks).toEqual([]);
    expect(r.changed_tasks).toEqual(["Next"]);
    expect(r.status).toBe("successful");
  });

  it("does the same in colour, each line wrapped in its own colour codes", () => {
    const red = (line: string): string => `\x1b[0;31m${line}\x1b[0m`;
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [Probe]"),
        ...["fatal: [node1]: FAILED! => {}", "", "STDERR:", "", "TASK [not a task] ***"].map(red),
        "\x1b[0;36m...ignoring\x1b[0m",
        ...playRecap([recapRow("node1", { ok: 1, ignored: 1 })]),
      ]),
    );
    expect(r.ignored_failures).toEqual(["Probe"]);
  });

  it("needs the empty line before the header; outside sections a short banner is still a banner", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        "ok: [node1] => {}",
        "STDOUT:",
        "TASK [Short] ***",
        "changed: [node1]",
        ...playRecap([recapRow("node1", { ok: 1, changed: 1 })]),
      ]),
    );
    expect(r.changed_tasks).toEqual(["Short"]);
  });

  it("counts a non-ASCII character as 2 columns: a real banner with a Japanese name ends a section", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [t]"),
        "ok: [node1] => {}",
        ...section("STDOUT:", "out"),
        `TASK [設定ファイルを配置する] ${"*".repeat(50)}`, // as Ansible prints it: 80 columns, 69 characters
        "changed: [node1]",
        ...playRecap([recapRow("node1", { ok: 2, changed: 1 })]),
      ]),
    );
    expect(r.changed_tasks).toEqual(["設定ファイルを配置する"]);
  });
});

describe("failures", () => {
  it("matches ...ignoring on loop items to the latest failing host not yet ignored, across interleaved hosts", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [Probe each]"),
        "failed: [node1] (item=a) => {}",
        "failed: [node2] (item=a) => {}",
        "ok: [node1] => (item=b)",
        "...ignoring",
        "changed: [node2] => (item=b)",
        "...ignoring",
        banner("TASK [Templated ignore_errors]"),
        "failed: [node1] (item=a) => {}",
        "ok: [node2] => (item=a)",
        "ok: [node1] => (item=b)",
        "...ignoring",
        "failed: [node2] (item=b) => {}",
        ...playRecap([recapRow("node1", { ok: 2, ignored: 2 }), recapRow("node2", { ok: 1, failed: 1, ignored: 1 })]),
      ]),
    );
    expect(r.ignored_failures).toEqual(["Probe each", "Templated ignore_errors"]);
    expect(r.failed_tasks).toEqual(["Templated ignore_errors"]);
    expect(r.changed_tasks).toEqual(["Probe each"]);
    expect(r.status).toBe("failed");
  });

  it("does not count retries, UNREACHABLE lines or their ...ignoring as failures", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [Wait for port]"),
        "FAILED - RETRYING: [node1]: Wait for port (3 retries left).",
        "FAILED - RETRYING: [node1]: Wait for port (2 retries left).",
        "ok: [node1]",
        banner("TASK [Reach]"),
        "fatal: [node2]: FAILED! => {}", // not ignored
        "fatal: [node3 -> bastion]: UNREACHABLE! => {}",
        "...ignoring", // ignore_unreachable: belongs to node3, must not hide node2's failure
        "fatal: [node4]: UNREACHABLE! => {}",
        banner("TASK [Again]"),
        "fatal: [node3]: UNREACHABLE! => {}",
        ...playRecap([
          recapRow("node1", { ok: 2 }),
          recapRow("node2", { ok: 1, failed: 1 }),
          recapRow("node3", { ok: 1, ignored: 1, unreachable: 1 }),
          recapRow("node4", { unreachable: 1 }),
        ]),
      ]),
    );
    expect(r.failed_tasks).toEqual(["Reach"]);
    expect(r.ignored_failures).toEqual([]);
    expect(r.unreachable_hosts).toEqual(["node3", "node4"]);
  });

  it("lists a rescued failure in failed_tasks while the run stays successful", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [Try]"),
        "fatal: [node1]: FAILED! => {}",
        banner("TASK [Recover]"),
        "changed: [node1]",
        ...playRecap([recapRow("node1", { ok: 1, changed: 1, rescued: 1 })]),
      ]),
    );
    expect(r.failed_tasks).toEqual(["Try"]);
    expect(r.status).toBe("successful");
  });

  it("orders both lists by the first failure line of each task", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [p]"),
        banner("TASK [B]"),
        "fatal: [node1]: FAILED! => {}",
        "...ignoring",
        banner("TASK [A]"),
        "fatal: [node1]: FAILED! => {}",
        "...ignoring",
        "fatal: [node2]: FAILED! => {}",
        banner("TASK [B]"),
        "fatal: [node2]: FAILED! => {}",
        ...playRecap([recapRow("node1", { ok: 2, ignored: 2 }), recapRow("node2", { failed: 1 })]),
      ]),
    );
    expect(r.ignored_failures).toEqual(["B", "A"]);
    expect(r.failed_tasks).toEqual(["B", "A"]);
  });
});

describe("recap and runs", () => {
  it("takes the last PLAY RECAP when several playbooks ran", () => {
    const r = parseRecapText(
      log([
        banner("PLAY [first.yml]"),
        banner("TASK [x]"),
        "fatal: [node1]: FAILED! => {}",
        ...playRecap([recapRow("node1", { failed: 1 })]),
        banner("PLAY [second.yml]"),
        banner("TASK [y]"),
        "changed: [node2]",
        ...playRecap([recapRow("node1", { failed: 1 }), recapRow("node2", { ok: 1, changed: 1 })]),
      ]),
    );
    expect(r.hosts.map((h) => [h.host, h.failed, h.changed])).toEqual([
      ["node1", 1, 0],
      ["node2", 0, 1],
    ]);
    expect(r.plays.map((p) => p.number)).toEqual([1, 2]);
    expect(r.changed_tasks).toEqual(["y"]);
    expect(r.status).toBe("failed");
  });

  it("is incomplete when a play started after the last recap and no recap followed", () => {
    const r = parseRecapText(
      log([banner("PLAY [one]"), ...playRecap([recapRow("node1", { ok: 1 })]), banner("PLAY [two]"), banner("TASK [z]")]),
    );
    expect(r.status).toBe("incomplete");
  });

  it("reads padded host rows with long names and ends the block at the first empty line", () => {
    const long = "a-very-long-hostname.example.internal";
    const r = parseRecapText(
      log([banner("PLAY [p]"), ...playRecap([recapRow(long, { ok: 3 }), recapRow("b", { ok: 1 })]), "c : ok=9 changed=9"]),
    );
    expect(r.hosts.map((h) => [h.host, h.ok])).toEqual([
      [long, 3],
      ["b", 1],
    ]);
  });
});

describe("profile_tasks summary", () => {
  const run = (tail: string[]): string =>
    log([
      banner("PLAY [p]"),
      banner("TASK [t]"),
      stamp("0:00:00.020"),
      "ok: [node1]",
      ...playRecap([recapRow("node1", { ok: 1 })]),
      ...tail,
    ]);

  it("reads NAME  S.SSs without dashes, names with ' - ', Japanese names and -vv path lines", () => {
    const long = "k8s : Wait for the API server to answer on every control plane node in turn";
    const r = parseRecapText(
      run(
        summary("1:02:03.999", [
          `${long}  1234.56s`,
          pathLine("/opt/ks/roles/k8s/tasks/main.yml:12"),
          entry("Install - step - two", 12.5),
          pathLine("/opt/ks/roles/very/long/path/that/goes/past/the/width/of/the/terminal/main.yml:7"),
          entry("パッケージをインストールする", 3.01),
          entry("Copy ---- files", 0.1),
          "",
          "Not an entry -------------------------------------------------------- 9.99s",
        ]),
      ),
    );
    expect(r.elapsed_sec).toBe(3723);
    expect(r.slowest_tasks).toEqual([
      { task: long, seconds: 1234.56 },
      { task: "Install - step - two", seconds: 12.5 },
      { task: "パッケージをインストールする", seconds: 3.01 },
      { task: "Copy ---- files", seconds: 0.1 },
    ]);
  });

  it("accepts the ansible.posix >= 2.0 header with its TASKS RECAP banner", () => {
    const r = parseRecapText(run(summary("0:00:09.900", [entry("t", 9.8)], { posix2: true })));
    expect(r.elapsed_sec).toBe(9);
    expect(r.slowest_tasks).toEqual([{ task: "t", seconds: 9.8 }]);
  });

  it("needs the = line right after the timestamp line and takes the last summary", () => {
    const r = parseRecapText(
      run([
        stamp("0:00:05.000"),
        "",
        `${"=".repeat(79)} `,
        entry("not a summary", 1),
        "",
        ...summary("0:00:04.000", [entry("first", 4)]),
        "",
        ...summary("0:00:08.000", [entry("second", 8)]),
      ]),
    );
    expect(r.elapsed_sec).toBe(8);
    expect(r.slowest_tasks).toEqual([{ task: "second", seconds: 8 }]);
  });

  it("ends the list at the first line that is neither an entry nor a path line", () => {
    const r = parseRecapText(run([...summary("0:00:02.000", [entry("a", 1), "some other output", entry("b", 1)])]));
    expect(r.slowest_tasks).toEqual([{ task: "a", seconds: 1 }]);
  });
});

describe("--list-tasks plans", () => {
  it("reads plays and counts task lines (6-space indent + TAB TAGS), not TASK TAGS lines", () => {
    const r = parseRecapText(
      log([
        "",
        "playbook: site.yml",
        "",
        "  play #1 (web:db): Deploy (v2)\tTAGS: [deploy]",
        "    tasks:",
        "      Install [optional] packages\tTAGS: [pkg]",
        "      include_tasks\tTAGS: []",
        "      TASK TAGS: [deploy, pkg]",
        "",
        "  play #2 (all): all\tTAGS: []",
        "    tasks:",
        "",
        "  play #3 (node1): Last\tTAGS: []",
        "    tasks:",
        "      only one\tTAGS: [x]",
        "        name with leading spaces\tTAGS: [y]",
      ]),
    );
    expect(r.status).toBe("plan");
    expect(r.plays).toEqual([
      { number: 1, name: "Deploy (v2)", hosts: "web:db" },
      { number: 2, name: "all", hosts: "all" },
      { number: 3, name: "Last", hosts: "node1" },
    ]);
    expect(r.tasks_per_play).toEqual([2, 0, 2]);
    expect(r.elapsed_sec).toBeNull();
  });

  it("has no tasks_per_play outside plans", () => {
    expect(parseRecapText(log([banner("PLAY [p]"), ...playRecap([])]))).not.toHaveProperty("tasks_per_play");
  });
});

describe("text decoding and streaming", () => {
  const text = log([
    banner("PLAY [p]"),
    banner("TASK [Change]"),
    "changed: [node1]",
    ...playRecap([recapRow("node1", { ok: 1, changed: 1 })]),
  ]);

  it("treats a lone CR as a line end and ignores a byte order mark", () => {
    const expected = parseRecapText(text);
    expect(parseRecapText(`\ufeff${text.replace(/\n/g, "\r")}`)).toEqual(expected);
    expect(parseRecapText(text.replace(/\n/g, "\r\n"))).toEqual(expected);
  });

  it("handles a CR at the end of a chunk followed by empty chunks and then the LF", () => {
    const crlf = text.replace(/\n/g, "\r\n");
    const cut = crlf.indexOf("\r") + 1;
    const parser = new RecapTextParser();
    parser.push(crlf.slice(0, cut));
    parser.push("");
    parser.push(crlf.slice(cut));
    expect(parser.finish()).toEqual(parseRecapText(text));
  });

  it("reads a last line without a newline", () => {
    expect(parseRecapText(text.trimEnd()).hosts).toHaveLength(1);
  });

  it("reads the head of a huge single-line result streamed in small chunks", () => {
    const huge = `changed: [node1] => {"stdout": "${"x".repeat(3_000_000)}"}`;
    const full = log([
      banner("PLAY [p]"),
      banner("TASK [Dump]"),
      huge,
      banner("TASK [After]"),
      ...playRecap([recapRow("node1", { ok: 2, changed: 1 })]),
    ]);
    const parser = new RecapTextParser();
    for (let i = 0; i < full.length; i += 4096) parser.push(full.slice(i, i + 4096));
    const r = parser.finish();
    expect(r.changed_tasks).toEqual(["Dump"]);
    expect(r).toEqual(parseRecapText(full));
  });

  it("refuses push() after finish()", () => {
    const parser = new RecapTextParser();
    parser.finish();
    expect(() => parser.push("x")).toThrow(/after finish/);
  });
});
