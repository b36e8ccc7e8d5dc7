/**
 * One playbook (test/fixtures/playbooks/recap/variants.yml), run for real at several
 * verbosities, with other stdout callbacks and into a log file: every text gives the recap of
 * the plain run, but for what truly differs between two runs (the timings).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRecapText } from "../../../server/recap/parse-text";
import type { Recap } from "../../../server/recap/types";

const ROOT = join(import.meta.dirname, "../../fixtures/recap");
const text = (name: string): string => readFileSync(join(ROOT, name, "log.txt"), "utf8");

/** The recap without its timings: elapsed_sec, and slowest_tasks as the sorted task names. */
function untimed(recap: Recap): Omit<Recap, "elapsed_sec" | "slowest_tasks"> & { timed_tasks: string[] } {
  const { elapsed_sec: _elapsed, slowest_tasks, ...rest } = recap;
  return { ...rest, timed_tasks: slowest_tasks.map((t) => t.task).sort() };
}

/** Each variant and a line of its text that shows it is what it claims to be. */
const VARIANTS: Array<[string, RegExp | string]> = [
  ["variants_v", /^changed: \[node1\] => \{"changed": true, "cmd": \["printf", /m],
  ["variants_vvvv", /^<node1> ESTABLISH LOCAL CONNECTION FOR USER: /m],
  ["variants_yaml_callback", /^fatal: \[node1\]: FAILED! => changed=true $/m],
  ["variants_yaml_result_format", /^changed: \[node\d\] => \n {4}changed: true$/m],
  ["variants_debug_callback", /^STDOUT:\n\nTASK \[not a task\] \*\*\*$/m],
  [
    "variants_debug_callback_color",
    ["STDOUT:", "", "line1", "changed: [node9]", "PLAY RECAP ***"].map((l) => `\x1b[0;33m${l}\x1b[0m`).join("\n"),
  ],
  [
    "log_path_debug_callback",
    /^\d{4}-\d\d-\d\d [\d:,]+ p=\d+ u=\S+ n=ansible \| fatal: \[node\d\]: FAILED! => \{\n(.*\n)*?STDOUT:\n\nTASK \[not a task\] \*\*\*$/m,
  ],
  ["log_path_vvvv_profile", /^\d{4}-\d\d-\d\d [\d:,]+ p=\d+ u=\S+ n=ansible \| <node1> ESTABLISH LOCAL CONNECTION/m],
];

describe("variants.yml: every verbosity, callback and log file gives the plain run's recap", () => {
  const plain = parseRecapText(text("variants_plain"));

  it("the plain run exercises changes, a skipped task, a loop, an ignored failure and a handler", () => {
    expect(plain).toMatchObject({
      status: "successful",
      changed_tasks: ["Change something", "Only on node1", "Loop over packages", "Restart service"],
      ignored_failures: ["Ignored failure"],
      failed_tasks: [],
    });
    expect(plain.hosts.map((h) => [h.host, h.skipped, h.ignored])).toEqual([
      ["node1", 0, 1],
      ["node2", 1, 1],
    ]);
  });

  it.each(VARIANTS)("%s", (name, sign) => {
    const variant = text(name);
    if (typeof sign === "string") expect(variant).toContain(sign);
    else expect(variant).toMatch(sign);
    const recap = parseRecapText(variant);
    expect(untimed(recap)).toEqual(untimed(plain));
    expect(recap.elapsed_sec).not.toBeNull();
  });
});
