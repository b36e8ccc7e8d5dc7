/**
 * The lab example (server/forms/examples/lab), as the kubespray lab goes, through the real app,
 * its local RTE and ansible-playbook: its collection (a tarball the form ships, named in its
 * requirements.yml) installed by the runner once; Preview lists its plays, roles' tasks and tags;
 * a run; a run with tags (which runs alone: each role makes what it needs) compared only with
 * runs of its kind; a check run; then the report over those runs, with what each handed back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

let app: RunningPlayform;
let api: ApiClient;
/** The runs of the tests, for the report at the end. */
const ran = { full: 0, tagged: 0, check: 0 };

async function run(values: Record<string, unknown> = {}, options: Record<string, unknown> = {}) {
  const answer = await api.call("POST", "/api/jobs", { json: { form: "lab", values, options } });
  expect(answer.status, JSON.stringify(answer.json)).toBe(201);
  const job = await api.waitForEnd(answer.json.id as number);
  const output = await api.output(job.id);
  expect(job.status, output).toBe("success");
  return { id: job.id as number, output };
}

beforeAll(async () => {
  app = await startPlayform();
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the lab example", () => {
  it("lists its plays, tasks and tags in a Preview, its collection installed by the runner", async () => {
    const started = await api.call("POST", "/api/forms/lab/preview", { json: { values: {} } });
    expect(started.status, JSON.stringify(started.json)).toBe(201);
    const plan = await waitFor("the preview's end", async () => {
      const answer = await api.get(`/api/forms/lab/preview/${started.json.id}`);
      return answer.done ? answer : null;
    });
    expect(plan.error ?? null, JSON.stringify(plan)).toBeNull();
    expect(plan.plays.map((p: { name: string }) => p.name)).toEqual([
      "Prepare the nodes",
      "Configure the container runtime",
      "Form the cluster",
      "Check the nodes",
    ]);
    expect(plan.tags).toEqual(expect.arrayContaining(["common", "runtime", "cluster", "verify", "containerd"]));
  });

  it("runs: three nodes prepared, configured and joined, the shipped collection's module and filter used", async () => {
    const { id, output } = await run();
    ran.full = id;
    expect(output).toMatch(/requirements: (installing|cached since)/);
    expect(output).toContain("node2 (worker): runtime containerd, joined https://node1:6443");
    const recap = await api.get(`/api/jobs/${id}/recap`);
    expect(recap.hosts.map((h: { host: string }) => h.host)).toEqual(["node1", "node2", "node3"]);
    expect(recap.hosts.every((h: { failed: number; unreachable: number }) => h.failed === 0 && h.unreachable === 0)).toBe(true);
    // Fresh nodes: every task that writes changes, the handler runs.
    expect(recap.changed_tasks).toEqual([
      "common : Create the node's folder",
      "common : Write the node's identity",
      "common : Stamp the last run",
      "runtime : Create the runtime's folder",
      "runtime : Configure containerd",
      "runtime : Set the node's pod limit",
      "runtime : Restart the container runtime",
      "cluster : Create the cluster's folder",
      "cluster : Initialise the control plane",
      "cluster : Join the cluster",
    ]);
  });

  // On one node (--limit): the rule is the same on three, and the suite's time is not.
  it("runs with tags, compared only with runs with the same tags", async () => {
    const first = await run({ container_runtime: "crio" }, { tags: ["runtime"], limit: "node1" });
    expect(first.output).toContain("TASK [runtime : Configure crio]");
    expect(first.output).not.toContain("TASK [cluster :");
    expect(await api.get(`/api/jobs/${first.id}/compare/previous?optional=1`)).toEqual({ previous: null });
    const second = await run({ container_runtime: "crio" }, { tags: ["runtime"], limit: "node1" });
    expect((await api.get(`/api/jobs/${second.id}/compare/previous`)).first.id).toBe(first.id);
    ran.tagged = first.id;
  });

  it("runs in check mode, writing nothing, compared only with check runs", async () => {
    const check = await run({}, { check: true, limit: "node1" });
    expect(check.output).toContain("TASK [runtime : Configure containerd]");
    expect(await api.get(`/api/jobs/${check.id}/compare/previous?optional=1`)).toEqual({ previous: null });
    ran.check = check.id;
  });

  it("writes the lab up: a report over the full, tagged and check runs, with what each handed back", async () => {
    const ids = [ran.full, ran.tagged, ran.check];
    const report = await api.get(`/api/forms/lab/report?jobs=${ids.join(",")}`);
    expect(report.jobs.map((j: { run: string }) => j.run)).toEqual([
      "full run, environment default",
      "--tags runtime --limit node1, environment default",
      "--limit node1 --check, environment default",
    ]);
    const task = (name: string) => report.tasks.find((t: { task: string }) => t.task === name);
    // Changed on fresh nodes, again with another runtime; the tagged run did not form the cluster.
    expect(task("runtime : Configure crio").changed).toEqual([null, true, null]);
    expect(task("cluster : Join the cluster").changed).toEqual([true, null, expect.any(Boolean)]);
    expect(report.hosts.map((h: { host: string; runs: unknown[] }) => [h.host, h.runs.map((r) => r !== null)])).toEqual([
      ["node1", [true, true, true]],
      ["node2", [true, false, false]],
      ["node3", [true, false, false]],
    ]);
    const results = Object.fromEntries(report.artifacts.map((a: { key: string; values: unknown[] }) => [a.key, a.values]));
    expect(results.cluster_endpoint).toEqual(["https://node1:6443", null, expect.anything()]);
    expect(results.node_runtimes[0]).toEqual({ node1: "containerd", node2: "containerd", node3: "containerd" });
  });
});
