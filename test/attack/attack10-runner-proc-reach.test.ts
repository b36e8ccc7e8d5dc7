/**
 * Attack 10 on issue 34, a probe (held): the runner-proc mode (RTE_SANDBOX_PROC=runner, the
 * runner's /proc read-only in the sandbox) as the real app runs it (local RTE as root,
 * playbooks as playform-run). A hostile playbook walks every /proc door to the RTE's processes
 * and to a concurrent job's (its `sleep`, its ansible-playbook and playbook-init.py, by the
 * other job's folder on their command lines): root, cwd, exe, environ, fd, fdinfo, map_files,
 * mem, maps, auxv, io, syscall, stack, the task/ copies, /proc/self/../PID, a write through
 * cwd and root, and PID 1's. The kernel refuses each one (ptrace's check wants the same user
 * namespace: cap_ptrace_access_check), each job's bwrap making one of its own. Run it by
 * moving it to test/integration/ (the imports stay); needs `npm run build`.
 * Fixture: test/fixtures/forms-attack10/proc-reach.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { ROOT } from "../support/rte-harness";

let app: RunningPlayform;
let api: ApiClient;
const base = fs.mkdtempSync("/var/lib/playform-attack10-proc-");
const spool = path.join(base, "spool");
const state = path.join(base, "state");

beforeAll(async () => {
  fs.chmodSync(base, 0o755);
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-attack10"),
      RTE_SANDBOX_PROC: "runner",
      RTE_SPOOL_PATH: spool,
      RTE_WORK_DIR: path.join(base, "work"),
      RTE_STATE_PATH: state,
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

it("opens none of the RTE's nor another job's processes through the runner's /proc", async () => {
  expect(app.output()).toMatch(/WARNING: playbooks run in a sandbox with the runner's \/proc/);
  const holder = await api.launch("proc-reach", { hold: 300 });
  const otherFolder = (await waitForOutput(holder, /FOLDER=(\S+?)"/))[1]!;
  // The holder's sleep has started (its folder is its cwd).
  await new Promise((resolve) => setTimeout(resolve, 3_000));

  const id = await api.launch("proc-reach", { other_folder: otherFolder, spool, state });
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("success");
  const targets = /TARGETS \[([\d ]*)\]/.exec(output)?.[1]?.trim().split(/\s+/) ?? [];
  // The RTE, the holder's sleep, its ansible-playbook and playbook-init.py at least.
  expect(targets.length, output).toBeGreaterThanOrEqual(3);
  const allowed = [...output.matchAll(/ALLOWED: (.*?)"/g)].map((m) => m[1]);
  const refused = [...output.matchAll(/REFUSED: /g)].length;
  console.log(`attack10 runner-proc: ${targets.length} targets, ${refused} doors refused, ${allowed.length} allowed`);
  expect(allowed, output).toEqual([]);
  expect(refused).toBeGreaterThanOrEqual(targets.length * 26);
  expect(fs.existsSync(path.join(otherFolder, "attack10-written"))).toBe(false);

  await api.call("POST", `/api/jobs/${holder}/abort`);
  await api.waitForEnd(holder);
}, 300_000);
