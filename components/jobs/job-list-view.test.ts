import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW, hasFilters, localDayBound, readView, viewQuery, viewSearch } from "./job-list-view";

const read = (search: string) => readView(new URLSearchParams(search));

describe("the jobs page's address", () => {
  it("reads every part of a view and writes it back the same", () => {
    const search = "?status=running,failed&form=deploy&user=alice&runner=edge+1&from=2026-03-01&to=2026-03-31&sort=created&cursor=abc_-1";
    const view = read(search);
    expect(view).toEqual({
      // In the order of the status list, whatever the address's order.
      statuses: ["running", "failed"],
      form: "deploy",
      user: "alice",
      runner: "edge 1",
      from: "2026-03-01",
      to: "2026-03-31",
      sort: "created",
      cursor: "abc_-1",
    });
    expect(read(viewSearch(view))).toEqual(view);
    expect(read("?status=failed,running").statuses).toEqual(["running", "failed"]);
  });

  it("leaves out what it cannot mean, and writes nothing for the default view", () => {
    expect(read("?status=bogus,,failed&from=yesterday&to=2026-3-1&sort=name")).toEqual({ ...DEFAULT_VIEW, statuses: ["failed"] });
    expect(viewSearch(DEFAULT_VIEW)).toBe("");
    expect(viewSearch(read(""))).toBe("");
    expect(hasFilters(DEFAULT_VIEW)).toBe(false);
    expect(hasFilters({ ...DEFAULT_VIEW, sort: "created", cursor: "x" })).toBe(false);
    expect(hasFilters({ ...DEFAULT_VIEW, to: "2026-03-01" })).toBe(true);
  });

  it("asks the API for whole days in the browser's time zone", () => {
    expect(localDayBound("2026-03-01", "start")).toBe(new Date(2026, 2, 1).toISOString());
    expect(localDayBound("2026-03-01", "end")).toBe(new Date(2026, 2, 1, 23, 59, 59, 999).toISOString());
    expect(localDayBound("", "start")).toBeUndefined();
    expect(viewQuery(read("?status=failed&from=2026-03-01&to=2026-03-02&cursor=c1"), 50)).toEqual({
      status: ["failed"],
      form: undefined,
      user: undefined,
      runner: undefined,
      from: new Date(2026, 2, 1).toISOString(),
      to: new Date(2026, 2, 2, 23, 59, 59, 999).toISOString(),
      sort: "-created",
      cursor: "c1",
      limit: 50,
    });
  });
});
