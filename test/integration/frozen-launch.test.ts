/**
 * A job runs what was launched. Its plan (playbook, inventories, options, files by content) is
 * frozen at launch: a form edited and re-imported while the job waits for approval, or for a
 * runner, changes later launches, not this job, and the job does not fail for it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "frozen-runner";
const formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-frozen-forms-"));
const harness = new RteHarness(formsDir, RUNNER);

/** Writes a form whose playbook says which version it is and greets every host of its inventory. */
function writeForm(name: string, version: string, host: string, extra: string[] = []): void {
  const dir = path.join(formsDir, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "form.yaml"),
    [`name: ${name}`, `title: ${name}`, "playbook: playbook.yml", "inventories: [hosts.ini]", ...extra, "fields: []", ""].join("\n"),
  );
  fs.writeFileSync(
    path.join(dir, "hosts.ini"),
    `${host} ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"\n`,
  );
  fs.writeFileSync(
    path.join(dir, "playbook.yml"),
    [
      "- hosts: all",
      "  gather_facts: false",
      "  tasks:",
      "    - ansible.builtin.debug:",
      `        msg: "playbook ${version} on {{ inventory_hostname }}"`,
      "",
    ].join("\n"),
  );
}

writeForm("frozen-approval", "version-A", "alpha", ["requiresApproval: true"]);
writeForm("frozen-queued", "version-A", "alpha", [`runner: ${RUNNER}`]);

beforeAll(async () => {
  await harness.start();
});
afterAll(async () => {
  await harness.stop();
  fs.rmSync(formsDir, { recursive: true, force: true });
});

async function reimportAsVersionB(): Promise<void> {
  writeForm("frozen-approval", "version-B", "beta", ["requiresApproval: true"]);
  writeForm("frozen-queued", "version-B", "beta", [`runner: ${RUNNER}`]);
  const imported = await harness.api.call("POST", "/api/forms/import");
  expect(imported.status, JSON.stringify(imported.json)).toBe(200);
  expect(imported.json.imported).toEqual(expect.arrayContaining(["frozen-approval", "frozen-queued"]));
}

it("runs the launched playbook on the launched inventory after a re-import, waiting for approval or for a runner", async () => {
  const { api } = harness;
  const waiting = await api.launch("frozen-approval");
  const queued = await api.launch("frozen-queued");
  const launched = (await api.get(`/api/jobs/${waiting}`)).job;
  expect(launched.status).toBe("approval");
  // What the approver approves: the plan, shown by the API (and the approval panel).
  expect(launched.plan).toMatchObject({ playbook: "playbook.yml", inventories: ["hosts.ini"], runner: "local" });
  expect(launched.plan.contentHash).toMatch(/^[0-9a-f]{64}$/);
  expect(launched.plan.options).toMatchObject({ check: false, diff: false, limit: null, verbosity: 0 });
  expect((await api.get(`/api/jobs/${queued}`)).job).toMatchObject({ status: "queued", plan: { runner: RUNNER } });

  await reimportAsVersionB();

  // Approved after the re-import: it runs version A on alpha, and succeeds.
  expect((await api.call("POST", `/api/jobs/${waiting}/approve`)).status).toBe(200);
  const approved = await api.waitForEnd(waiting);
  const approvedOutput = await api.output(waiting);
  expect(approved.status, approvedOutput).toBe("success");
  expect(approvedOutput).toContain("playbook version-A on alpha");
  expect(approvedOutput).not.toContain("version-B");
  expect(approved.plan.contentHash).toBe(launched.plan.contentHash);

  // Its runner connects only now, reading files from the (edited) shared folder: the content
  // the job was launched with comes from the app instead, and it runs version A too.
  const { spoolDir, workDir } = harness.dirs("frozen-1");
  harness.startRte({ instanceId: "frozen-1", spoolDir, workDir, env: { RTE_FILES: "local" } });
  const ran = await api.waitForEnd(queued, 120_000);
  const queuedOutput = await api.output(queued);
  expect(ran.status, queuedOutput).toBe("success");
  expect(queuedOutput).toContain("playbook version-A on alpha");
  expect(queuedOutput).not.toContain("version-B");

  // The re-import did take effect: a job launched now runs version B on beta.
  const later = await api.launch("frozen-queued");
  const laterJob = await api.waitForEnd(later, 120_000);
  const laterOutput = await api.output(later);
  expect(laterJob.status, laterOutput).toBe("success");
  expect(laterOutput).toContain("playbook version-B on beta");
  expect(laterJob.plan.contentHash).not.toBe(launched.plan.contentHash);
});
