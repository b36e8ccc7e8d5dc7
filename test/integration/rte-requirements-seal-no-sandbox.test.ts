/**
 * Attack 7 on issue 34: with RTE_SANDBOX=none (a root RTE, playbooks as playform-run), a form's
 * requirements.txt install leaves a process behind (the build backend of the form's own package
 * starts it with setsid) that opened a file of the venv while the install ran, and writes
 * through that descriptor once the RTE has sealed the venv as a cache entry (made it root's and
 * read-only: modes are checked at open, not at write). Every later job with that entry runs
 * the changed code. docs/security.md says what a requirements install put in the cache
 * "cannot be changed by a later job", and names as limits only the disk use, reading another
 * form's entry, and an entry that is the playbook user's when there is neither a playbook user
 * nor the sandbox; store() in server/rte/requirements-cache.ts says "After seal: the files are
 * the RTE's now, nothing of the install can swap them meanwhile". Under bwrap the writer dies
 * with the install's pid namespace. Fixture: test/fixtures/forms-attack7/pip-seal-race.
 *
 * Seen on today's code: the second job prints `sealrace=changed-after-sealing` from a file of
 * the entry owned by root, mode 0644.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({
    env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../../fixtures/forms-attack7"), RTE_SANDBOX: "none" },
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
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const second = await api.waitForEnd(await api.launch("pip-seal-race"), 240_000);
  const out2 = await api.output(second.id);
  expect(second.status, `${second.statusReason}\n${out2}`).toBe("success");
  expect(out2).toMatch(/requirements: cached since/);
  expect(/sealrace=\S+/.exec(out2)?.[0], out2).toBe("sealrace=as-installed");
}, 600_000);
