/**
 * What a playbook hands back (issue 22 section 3): set_stats data is the job's artifacts,
 * through the real app, its local RTE, ansible-playbook and the callback plugin: the run's data
 * aggregated as Ansible aggregates it, per-host data apart, a secret among them masked, and
 * data over the 1 MiB cap refused with a reason instead of stored.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const TOKEN = "artifact-token-5f4e3d2c1b";

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-artifacts") } });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("keeps the run's set_stats data, aggregated, per-host data apart, and masks a secret in it", async () => {
  const job = await api.waitForEnd(await api.launch("artifacts", { api_token: TOKEN }));
  expect(job.status).toBe("success");
  const answer = await api.get(`/api/jobs/${job.id}/artifacts`);
  expect(answer).toEqual({
    artifacts: { cluster_id: "c-123", nodes: 3, nodes_ready: ["node1", "node2"], token: "********" },
    hosts: { localhost: { host_uid: 1000 } },
    error: null,
  });
  expect(JSON.stringify(answer)).not.toContain(TOKEN);
});

it("refuses set_stats data over 1 MiB with a reason, and the job still succeeds", async () => {
  const job = await api.waitForEnd(await api.launch("artifacts", { api_token: TOKEN, big_kb: 1100 }));
  expect(job.status).toBe("success");
  const answer = await api.get(`/api/jobs/${job.id}/artifacts`);
  expect(answer.artifacts).toEqual({});
  expect(answer.error).toMatch(/^set_stats data of \d+ bytes is over the 1048576-byte cap \(1 MiB\): not kept$/);
});
