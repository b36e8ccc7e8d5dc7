import { describe, expect, it } from "vitest";
import { optionDifferences, runKindKey, runKindOf, runOptionsOf } from "../../server/jobs/run-kind";
import { jobOptionsSchema } from "../../server/protocol/rte-messages";

const options = (o: Record<string, unknown> = {}) => jobOptionsSchema.parse(o);
const key = (playbook: string, o: Record<string, unknown> = {}) => runKindKey(runKindOf(playbook, options(o)));

describe("the kind of a run", () => {
  it("is the same for runs that run the same tasks on the same hosts", () => {
    expect(key("site.yml")).toBe(key("site.yml", { diff: true, verbosity: 3, keepExtravars: true }));
    // Tags are a set: order, repeats and blanks do not matter; a blank limit is no limit.
    expect(key("site.yml", { tags: ["b", "a", "a"] })).toBe(key("site.yml", { tags: ["a", "b"] }));
    expect(key("site.yml", { limit: "  " })).toBe(key("site.yml"));
    expect(key("site.yml", { limit: " web " })).toBe(key("site.yml", { limit: "web" }));
  });

  it("differs by playbook, tags, skip tags, limit and check mode", () => {
    const all = [
      key("site.yml"),
      key("other.yml"),
      key("site.yml", { tags: ["a"] }),
      key("site.yml", { skipTags: ["a"] }),
      key("site.yml", { limit: "web" }),
      key("site.yml", { check: true }),
      // Tags and skip tags are not interchangeable.
      key("site.yml", { tags: ["a"], skipTags: ["b"] }),
      key("site.yml", { tags: ["b"], skipTags: ["a"] }),
    ];
    expect(new Set(all).size).toBe(all.length);
  });
});

describe("the options of two runs", () => {
  const view = (o: Record<string, unknown>, values: unknown = { a: 1, b: [1, 2] }, environment: string | null = "default") =>
    runOptionsOf({ playbook: "site.yml", options: options(o), environment, values });

  it("hash the values whatever the order of their keys", () => {
    expect(view({}, { a: 1, b: { c: 2, d: 3 } }).valuesHash).toBe(view({}, { b: { d: 3, c: 2 }, a: 1 }).valuesHash);
    expect(view({}, { a: 1 }).valuesHash).not.toBe(view({}, { a: 2 }).valuesHash);
  });

  it("list where they differ, in a fixed order", () => {
    expect(optionDifferences(view({}), view({}))).toEqual([]);
    expect(optionDifferences(view({ tags: ["x"], verbosity: 2 }, { a: 1 }, "k8s"), view({}, { a: 1 }, "default"))).toEqual([
      { option: "tags", first: ["x"], second: [] },
      { option: "verbosity", first: 2, second: 0 },
      { option: "environment", first: "k8s", second: "default" },
    ]);
  });
});
