/**
 * A playbook runs arbitrary code on the runner. Started as root (as CI and the tests are), the
 * local RTE runs it as an unprivileged user of its own, in a job folder only that job can
 * enter: the playbook tries to read the app's and the runner's secrets, the spool, the file
 * cache, the database and another running job's folder, and every attempt is refused.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { ROOT } from "../support/rte-harness";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  // The sandbox would hide the app's data folder, the runner's folders, the other job's folder
  // and the RTE's /proc entries (sandbox-fs.test.ts): what this proves is that the playbook user
  // may not read them even where it sees them (without bubblewrap).
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-local"), RTE_SANDBOX: "none" } });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
});

async function waitForOutput(id: number, pattern: RegExp): Promise<RegExpExecArray> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = pattern.exec(await api.output(id));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`job ${id} never printed ${pattern}:\n${await api.output(id)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

it("runs the playbook as an unprivileged user that can read no secret of the app or the runner, nor another job's folder", async () => {
  // A data folder anyone may enter, as ./data of a checkout is (0755): what protects each file
  // is then its own mode and the runner's folders, not the test's private temp folder.
  fs.chmodSync(app.dataDir, 0o755);

  // Another job, holding its folder while the probe runs.
  const holder = await api.launch("file-probe", { hold: 300 });
  const otherFolder = (await waitForOutput(holder, /PROBE uid=\d+ gid=\d+ home=\S+ folder=(\S+?)"/))[1]!;

  const rtePid = (JSON.parse(fs.readFileSync(path.join(app.dataDir, "rte/spool/rte.lock"), "utf8")) as { pid: number }).pid;
  const targets = [
    `/proc/${rtePid}/environ`,
    `/proc/${app.pid}/environ`,
    path.join(app.dataDir, "rte/state/token"),
    path.join(app.dataDir, "encryption.key"),
    path.join(app.dataDir, "playform.db"),
    path.join(app.dataDir, "rte/spool"),
    path.join(app.dataDir, "rte/spool/rte.lock"),
    path.join(app.dataDir, "rte/work"),
    path.join(app.dataDir, "rte/work/cache"),
    path.dirname(otherFolder),
    otherFolder,
    path.join(otherFolder, "playbook.yml"),
  ];
  // Each exists: a refusal must mean "not allowed", never "not there".
  for (const target of targets) expect(fs.existsSync(target), target).toBe(true);

  const id = await api.launch("file-probe", { targets: targets.join("\n") });
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("success");

  const who = /PROBE uid=(\d+) gid=(\d+) home=(\S+) folder=(\S+?)"/.exec(output);
  expect(who, output).not.toBeNull();
  const [, uid, gid, home, folder] = who!;
  expect(Number(uid)).not.toBe(0);
  expect(Number(gid)).not.toBe(0);
  // Its home and temp files are in its own folder, which is not the other job's.
  expect(home).toBe(folder);
  expect(folder).not.toBe(otherFolder);

  const readable = [...output.matchAll(/PROBE READABLE (.*?)"/g)].map((m) => m[1]);
  expect(readable).toEqual([]);
  const refused = [...output.matchAll(/PROBE REFUSED (\S+): (.*?)"/g)].map((m) => ({ path: m[1]!, why: m[2]! }));
  expect(refused.map((r) => r.path).sort()).toEqual([...targets].sort());
  for (const r of refused) expect(r.why, r.path).toContain("Permission denied");

  const aborted = await api.call("POST", `/api/jobs/${holder}/abort`);
  expect(aborted.status).toBeLessThan(300);
  expect((await api.waitForEnd(holder)).status).toBe("aborted");
});

it("fails, without running it, a job whose form asks for no network, on a runner without the sandbox", async () => {
  const id = await api.launch("offline");
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("failed");
  expect(job.statusReason).toMatch(/asks for a playbook without network \(sandbox: \{network: false\}\), and this runner has no sandbox/);
  expect(output).not.toContain("OFFLINE PLAYBOOK RAN");
});
