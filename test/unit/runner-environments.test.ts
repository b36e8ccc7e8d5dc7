/**
 * GET /api/runners: a runner's environments, derived from what its instances reported
 * (server/data/runners.ts, runnerEnvironments; docs/api.md, "Runners").
 */
import { describe, expect, it } from "vitest";
import { runnerEnvironments } from "../../server/data/runners";

describe("a runner's environments, from its instances'", () => {
  const report = (name: string, ansibleCore: string | null, error: string | null = null) => ({
    name,
    description: "",
    ansibleCore,
    python: "3.11.2",
    collections: [],
    error,
  });
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));

  it("lists every name once: a connected instance's before a disconnected one's, a working one before a broken one, then the newest", () => {
    const environments = runnerEnvironments([
      { connected: false, connectedAt: at(9), environments: [report("old", "2.9.27"), report("b", "2.17.0")] },
      { connected: true, connectedAt: at(1), environments: [report("b", null, "no ansible-playbook in /opt/b"), report("a", "2.14.0")] },
      { connected: true, connectedAt: at(2), environments: [report("a", "2.15.0"), report("c", null, "timed out")] },
      { connected: true, connectedAt: at(0), environments: [report("c", "2.16.0")] },
    ]);
    expect(environments.map((e) => [e.name, e.ansibleCore, e.error])).toEqual([
      ["a", "2.15.0", null],
      ["b", null, "no ansible-playbook in /opt/b"],
      ["c", "2.16.0", null],
      ["old", "2.9.27", null],
    ]);
  });
});
