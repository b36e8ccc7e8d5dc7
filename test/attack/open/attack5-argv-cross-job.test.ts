/**
 * Fifth attack on issue 34 ("nothing a playbook can read holds another secret"): the sandbox keeps
 * the machine's /proc (server/rte/sandbox.ts: no `--proc /proc`), and every job runs as the
 * same playbook user, so a job reads the command lines of another job's processes. A password a
 * job hands to a command on its command line (`mysql -p…`, `curl -u user:…`, `sshpass -p`) is
 * read by a concurrent job and stored in that job's output unmasked: the spy's masker knows
 * only the spy's secrets. docs/security.md states that jobs can signal each other's processes,
 * "not read their files, memory or environment"; command lines are not mentioned.
 * Fixtures: test/fixtures/forms-attack5/argv-victim and argv-spy.
 * Lives in test/attack/open: move to test/integration (one ../ less) to run; needs `npm run build`.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const PASSWORD = "db-pw-attack5-7c6b5a49";

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../../fixtures/forms-attack5") } });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("a job cannot read another job's password from its processes' command lines", async () => {
  const spy = await api.launch("argv-spy", {});
  const victim = await api.launch("argv-victim", { db_password: PASSWORD });
  const [spyJob, victimJob] = [await api.waitForEnd(spy, 180_000), await api.waitForEnd(victim, 180_000)];
  const victimOutput = await api.output(victimJob.id);
  expect(victimOutput).not.toContain(PASSWORD);
  const spyOutput = await api.output(spyJob.id);
  expect(spyOutput, spyOutput).not.toContain(PASSWORD);
}, 400_000);
