/**
 * Nothing a playbook can read holds another job's secret: the command lines of other jobs'
 * processes included. Every job runs as the same playbook user; with the machine's /proc in
 * the sandbox, a job read a concurrent job's `--password=…` from /proc/PID/cmdline and stored
 * it in its own output unmasked (its masker knows only its own secrets): the fifth attack on
 * issue 34. The sandbox's /proc is the job's pid namespace's (server/rte/sandbox.ts,
 * `--proc /proc`): the spy, watching /proc for 40 s while the victim runs, finds nothing.
 * Fixtures: test/fixtures/forms-attack5/argv-victim and argv-spy.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const PASSWORD = "db-pw-attack5-7c6b5a49";

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-attack5") } });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("a job cannot read another job's password from its processes' command lines", async () => {
  const spy = await api.launch("argv-spy", {});
  const victim = await api.launch("argv-victim", { db_password: PASSWORD });
  const [spyJob, victimJob] = [await api.waitForEnd(spy, 180_000), await api.waitForEnd(victim, 180_000)];
  // Both ran, at the same time: the spy watched while the victim's command line held the password.
  expect([spyJob.status, victimJob.status]).toEqual(["success", "success"]);
  expect(Date.parse(victimJob.startedAt)).toBeLessThan(Date.parse(spyJob.finishedAt));
  expect(Date.parse(spyJob.startedAt)).toBeLessThan(Date.parse(victimJob.finishedAt));
  const victimOutput = await api.output(victimJob.id);
  expect(victimOutput).not.toContain(PASSWORD);
  const spyOutput = await api.output(spyJob.id);
  expect(spyOutput, spyOutput).not.toContain(PASSWORD);
}, 400_000);
