/**
 * deploy/grafana/playform-dashboard.json reads only metrics the app and the RTE export: a
 * metric renamed in server/metrics or server/rte/health.ts fails here, not on a blank panel.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppMetrics } from "../../server/metrics/app-metrics";
import { rteMetrics } from "../../server/rte/health";

const FILE = path.resolve(import.meta.dirname, "../../deploy/grafana/playform-dashboard.json");

interface Panel {
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: { expr: string }[];
}

describe("the Grafana dashboard", () => {
  const dashboard = JSON.parse(fs.readFileSync(FILE, "utf8")) as {
    panels: Panel[];
    templating: { list: { name: string; type: string; query: string }[] };
  };
  const panels = dashboard.panels.filter((p) => p.type !== "row");

  it("asks for a Prometheus datasource and uses it in every panel", () => {
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: "datasource", type: "datasource", query: "prometheus" }),
    );
    for (const panel of panels) expect(panel.datasource?.uid, panel.title).toBe("${datasource}");
  });

  it("queries only metrics the app and the RTE define", async () => {
    const agent = { connected: true, runningCount: 0, spooledItems: 0, draining: false, counters: { claimed: 0 } };
    const defined = new Set<string>();
    for (const registry of [new AppMetrics().registry, rteMetrics(agent as never, 1)]) {
      for (const metric of await registry.getMetricsAsJSON()) defined.add(metric.name);
    }
    const used = new Set<string>();
    for (const panel of panels) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets!) for (const [name] of expr.matchAll(/\bplayform_[a-z_]+/g)) used.add(name);
    }
    expect(used.size).toBeGreaterThan(10);
    for (const name of used) expect(defined, name).toContain(name.replace(/_(bucket|count|sum)$/, ""));
  });
});
