import { describe, expect, it } from "vitest";
import { hostRowsOfRecap, MAX_HOST_NAME } from "../../server/jobs/hosts";
import { hostRow, recap } from "../support/recap-rows";

describe("hostRowsOfRecap", () => {
  it("gives each PLAY RECAP row with the tasks that changed that host, changed and ignored-failed, once each", () => {
    const { rows, dropped } = hostRowsOfRecap(
      recap({
        hosts: [hostRow("web1", { ok: 3, changed: 2, ignored: 1 }), hostRow("db1", { ok: 2, failed: 1 })],
        changed_tasks: ["Install", "Restart"],
        changed_results: {
          changed: [
            { task: "Install", hosts: ["web1"], results: 1 },
            { task: "Restart", hosts: ["web1"], results: 2 },
          ],
          ignored_failures: [
            { task: "Probe", hosts: ["web1"], results: 1 },
            { task: "Install", hosts: ["web1"], results: 1 },
          ],
        },
      }),
    );
    expect(dropped).toBe(0);
    expect(rows).toEqual([
      {
        host: "web1",
        ok: 3,
        changed: 2,
        unreachable: 0,
        failed: 0,
        skipped: 0,
        rescued: 0,
        ignored: 1,
        changedTasks: ["Install", "Restart", "Probe"],
      },
      { host: "db1", ok: 2, changed: 0, unreachable: 0, failed: 1, skipped: 0, rescued: 0, ignored: 0, changedTasks: [] },
    ]);
  });

  it("names the changed tasks of a text recap only when the run had one host", () => {
    const one = hostRowsOfRecap(recap({ hosts: [hostRow("web1", { changed: 1 })], changed_tasks: ["Install"] }));
    expect(one.rows[0]!.changedTasks).toEqual(["Install"]);
    const two = hostRowsOfRecap(recap({ hosts: [hostRow("web1", { changed: 1 }), hostRow("db1")], changed_tasks: ["Install"] }));
    expect(two.rows.map((row) => row.changedTasks)).toEqual([[], []]);
  });

  it("takes an incomplete run's partial counts, which are all it has", () => {
    const { rows } = hostRowsOfRecap(recap({ status: "incomplete", hosts: [], partial_hosts: [hostRow("web1", { ok: 1 })] }));
    expect(rows.map((row) => [row.host, row.ok])).toEqual([["web1", 1]]);
  });

  it("drops an empty name, one too long to index, and a second row of the same host", () => {
    const { rows, dropped } = hostRowsOfRecap(
      recap({
        hosts: [
          hostRow(""),
          hostRow("x".repeat(MAX_HOST_NAME + 1)),
          hostRow("x".repeat(MAX_HOST_NAME)),
          hostRow("web1"),
          hostRow("web1", { ok: 9 }),
        ],
      }),
    );
    expect(rows.map((row) => row.host.length)).toEqual([MAX_HOST_NAME, 4]);
    expect(rows[1]!.ok).toBe(0);
    expect(dropped).toBe(2);
  });
});
