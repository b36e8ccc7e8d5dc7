/**
 * The preview's plan parser against real `ansible-playbook --list-tasks --list-tags` output
 * (ansible-core 2.14, ANSIBLE_FORCE_COLOR=1 as the RTE runs it), kept in test/fixtures/plan.
 * plan-probe*.txt come from test/fixtures/forms-preview/plan-probe.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { hasTemplatedNames, parsePlan } from "@/server/recap/plan";

const fixture = (name: string) => fs.readFileSync(path.resolve(import.meta.dirname, "../../fixtures/plan", name), "utf8");

it("reads plays with their host patterns, tasks with their inherited tags, and every tag", () => {
  expect(parsePlan(fixture("plan-probe.txt"))).toEqual({
    plays: [
      {
        number: 1,
        name: "Write the marker",
        hosts: "local",
        tags: ["setup"],
        tasks: [
          { name: "Write the marker file", tags: ["files", "setup", "write"] },
          { name: "Say the greeting", tags: ["check-block", "setup"] },
        ],
      },
      { number: 2, name: "Second play on all hosts", hosts: "all:!nothing", tags: [], tasks: [{ name: "Greet again", tags: [] }] },
    ],
    tags: ["check-block", "files", "setup", "write"],
    error: null,
  });
});

it("lists only the tasks --tags selects; the warning on stderr is not a task", () => {
  const plan = parsePlan(fixture("plan-probe-tags-write.txt"));
  expect(plan.plays.map((p) => p.tasks.map((t) => t.name))).toEqual([["Write the marker file"], []]);
  expect(plan.tags).toEqual(["files", "setup", "write"]);
  expect(plan.error).toBeNull();
});

it("names a role's task `role : name` and an unnamed task by its action", () => {
  const plan = parsePlan(fixture("roles-unnamed.txt"));
  expect(plan.plays).toEqual([
    {
      number: 1,
      name: "localhost",
      hosts: "localhost",
      tags: [],
      tasks: [
        { name: "greeter : Role task one", tags: ["rtag"] },
        { name: "ansible.builtin.debug", tags: [] },
      ],
    },
  ]);
  expect(plan.tags).toEqual(["rtag"]);
});

it("keeps Ansible's error of a playbook that does not parse, without colours", () => {
  const plan = parsePlan(fixture("syntax-error.txt"));
  expect(plan.plays).toEqual([]);
  expect(plan.error).toMatch(/^We were unable to read either as JSON nor YAML/);
  expect(plan.error).toContain("Syntax Error while loading YAML.");
  expect(plan.error).not.toContain("\u001b[");
});

it("reads nothing from empty or unrelated text", () => {
  expect(parsePlan("")).toEqual({ plays: [], tags: [], error: null });
  expect(parsePlan("      Stray\tTAGS: [x]\n")).toEqual({ plays: [], tags: [], error: null });
});

it("tells a plan whose task or play names hold Jinja (printed as written, filled only at run time)", () => {
  // Before the fix: the preview showed "Show {{ item }}" without a word; the page says so when this holds.
  const play = (name: string, tasks: string[]) => ({
    number: 1,
    name,
    hosts: "local",
    tags: [],
    tasks: tasks.map((n) => ({ name: n, tags: [] })),
  });
  expect(hasTemplatedNames([play("Packages", ["Install {{ package }}"])])).toBe(true);
  expect(hasTemplatedNames([play("Packages", ["Show {{item}}", "plain"])])).toBe(true);
  expect(hasTemplatedNames([play("For {% if x %}x{% endif %}", [])])).toBe(true);
  expect(hasTemplatedNames(parsePlan(fixture("plan-probe.txt")).plays)).toBe(false);
  expect(hasTemplatedNames([play("Braces {not jinja}", ["a { b } c"])])).toBe(false);
});
