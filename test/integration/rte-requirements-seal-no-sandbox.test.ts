/**
 * Attack 7 on issue 34, fixed: with RTE_SANDBOX=none (a root RTE, playbooks as playform-run), a
 * process a requirements install leaves behind (the build backend of the form's own package
 * starts it with setsid, fixture test/fixtures/forms-attack7/pip-seal-race) opens a file of the
 * venv while the install runs and waits to write through that descriptor once the RTE has sealed
 * the venv as a cache entry. Before the fix the entry was the install's folder renamed (same
 * inodes), and the second job printed `sealrace=changed-after-sealing`. Now, without the
 * sandbox, the RTE ends what the install left running before taking its folder
 * (install-leftovers.ts) and copies the tree into the cache (new files: ObtainOptions.copy), so
 * the second job, from the cache, prints what was installed.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({
    env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-attack7"), RTE_SANDBOX: "none" },
  });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("a process left by a requirements install cannot change the sealed cache entry", async () => {
  expect(app.output()).toMatch(/RTE_SANDBOX=none/);
  const first = await api.waitForEnd(await api.launch("pip-seal-race"), 240_000);
  const out1 = await api.output(first.id);
  expect(first.status, `${first.statusReason}\n${out1}`).toBe("success");
  expect(out1).toMatch(/requirements: pip installing/);
  expect(out1).toMatch(/requirements: ended [1-9]\d* process\(es\) the install left running/);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const second = await api.waitForEnd(await api.launch("pip-seal-race"), 240_000);
  const out2 = await api.output(second.id);
  expect(second.status, `${second.statusReason}\n${out2}`).toBe("success");
  expect(out2).toMatch(/requirements: cached since/);
  expect(/sealrace=\S+/.exec(out2)?.[0], out2).toBe("sealrace=as-installed");
}, 600_000);
