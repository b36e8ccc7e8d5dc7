/**
 * The sandbox with the runner's /proc (RTE_SANDBOX_PROC=runner; docs/rte.md, "The sandbox"):
 * what an RTE gets where the kernel refuses to mount a new /proc (a container without
 * --privileged), which this machine cannot be made to do, so the setting forces it. Everything
 * but the /proc holds: the system read-only, the job's folder and /tmp the only ones it writes,
 * the spool and another job's folder hidden, and the RTE's own view of them through
 * /proc/PID/root closed. What it gives up, and says at start: the playbook sees the runner's
 * processes and their command lines, the RTE's and another job's. The real app, its local RTE
 * as root and playbooks as playform-run, as in sandbox-fs.test.ts; the forms are
 * test/fixtures/forms-sandbox.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { ROOT } from "../support/rte-harness";

let app: RunningPlayform;
let api: ApiClient;
// Outside the temp folders, as in sandbox-fs.test.ts: what hides them is the sandbox's tmpfs.
const base = fs.mkdtempSync("/var/lib/playform-sandbox-proc-");
const spool = path.join(base, "spool");
const openDir = path.join(base, "open");

beforeAll(async () => {
  fs.chmodSync(base, 0o755);
  fs.mkdirSync(openDir, { mode: 0o777 });
  fs.chmodSync(openDir, 0o777);
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-sandbox"),
      RTE_SANDBOX_PROC: "runner",
      RTE_SPOOL_PATH: spool,
      RTE_WORK_DIR: path.join(base, "work"),
      RTE_STATE_PATH: path.join(base, "state"),
      RTE_JOBS_DIR: path.join(base, "jobs"),
    },
  });
  api = apiClient(app, await adminToken(app));
}, 120_000);
afterAll(async () => {
  await app?.stop();
  fs.rmSync(base, { recursive: true, force: true });
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

it("says so at start, sees the runner's processes, and still writes only its folder and /tmp and sees neither the spool nor another job's folder", async () => {
  expect(app.output()).toMatch(/WARNING: playbooks run in a sandbox with the runner's \/proc \(bubblewrap, RTE_SANDBOX_PROC=runner\)/);
  expect(app.output()).toMatch(/sees every process of the runner and their command lines/);
  const holder = await api.launch("fs-probe", { hold: 300 });
  const otherFolder = (await waitForOutput(holder, /FOLDER=(\S+?)"/))[1]!;
  expect(fs.existsSync(path.join(otherFolder, "playbook.yml"))).toBe(true);
  expect(fs.existsSync(path.join(spool, "rte.lock"))).toBe(true);

  const id = await api.launch("fs-probe", { other_folder: otherFolder, spool, open_dir: openDir });
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("success");

  // The limit of this mode: the runner's processes, the RTE's and the other job's `sleep 300`
  // with their command lines. Still a pid namespace of its own: playbook-init.py is not PID 1
  // of this /proc (the runner's init is), yet the job ran under it.
  const processes = [...output.matchAll(/PROC (\d+) (.*?)"/g)].map((m) => ({ pid: Number(m[1]), command: m[2]! }));
  expect(
    processes.some((p) => /dist\/rte\.js/.test(p.command)),
    output,
  ).toBe(true);
  expect(
    processes.some((p) => /sleep 300/.test(p.command)),
    output,
  ).toBe(true);

  const refused = (what: string) => new RegExp(`REFUSED: ${what.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\((.*?)\\)"`).exec(output)?.[1];
  expect(refused("touch /usr/sandbox-probe"), output).toMatch(/Read-only file system|Permission denied/);
  expect(refused(`touch ${openDir}/sandbox-probe`)).toContain("Read-only file system");
  expect(fs.existsSync(path.join(openDir, "sandbox-probe"))).toBe(false);
  expect(refused(`touch ${otherFolder}/sandbox-probe`)).toContain("No such file or directory");
  expect(refused(`ls ${otherFolder}/playbook.yml`)).toContain("No such file or directory");
  expect(fs.existsSync(path.join(otherFolder, "sandbox-probe"))).toBe(false);
  expect(refused(`cat ${spool}/rte.lock`)).toContain("No such file or directory");
  expect(output).toContain("SPOOL HOLDS []");
  // Nor through the RTE's own view of the files: /proc/PID/root is closed to another user namespace.
  const throughRte = [...output.matchAll(/(ALLOWED|REFUSED): ls \/proc\/\d+\/root(\S+)/g)];
  expect(throughRte.length, output).toBeGreaterThan(0);
  for (const [, verdict, where] of throughRte) expect([verdict, where]).toEqual(["REFUSED", spool]);
  expect(output).toMatch(/ALLOWED: touch \S+\/mine"/);
  expect(output).toContain("ALLOWED: touch /tmp/mine");

  const aborted = await api.call("POST", `/api/jobs/${holder}/abort`);
  expect(aborted.status).toBeLessThan(300);
  expect((await api.waitForEnd(holder)).status).toBe("aborted");
}, 300_000);
