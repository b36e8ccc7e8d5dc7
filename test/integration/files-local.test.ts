/**
 * RTE_FILES=local: the runner reads the job's files from a folder it shares with the app
 * instead of asking the app for them, with the same hash checks.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  // The local RTE inherits RTE_* variables from the app's environment.
  app = await startPlayform({ env: { RTE_FILES: "local" } });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
});

it("runs hello-world from the shared folder", async () => {
  const id = await api.launch("hello-world", { message: "from the shared folder" });
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("success");
  expect(output).toContain("job files ready: 2 read from the shared folder, 0 from the cache");
  expect(output).toContain("from the shared folder");
  // The app was never asked for files.
  const second = await api.waitForEnd(await api.launch("hello-world", { message: "again" }));
  expect(await api.output(second.id)).toContain("job files ready: 0 read from the shared folder, 2 from the cache");
});
