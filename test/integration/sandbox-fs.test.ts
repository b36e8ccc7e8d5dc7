/**
 * The sandbox a playbook runs in (docs/rte.md, "The sandbox"; issue 21 §3): under bubblewrap a
 * playbook sees only its own processes in /proc, the runner's system read-only, its job folder
 * and its /tmp writable, and none of the runner's own folders: not the RTE's spool, work dir
 * and state, not the jobs folder with another job's folder. The real app, its local RTE (as
 * root, playbooks as playform-run, as CI runs it) and ansible-playbook; the RTE's folders are
 * outside the temp folders, so what hides them is the sandbox's tmpfs, not the private /tmp.
 * The forms are test/fixtures/forms-sandbox.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { ROOT } from "../support/rte-harness";

let app: RunningPlayform;
let api: ApiClient;
// Outside /tmp, /var/tmp, /dev/shm and /run/lock (which the private /tmp replaces anyway), open
// to the playbook user as a runner's /var/lib folder is.
const base = fs.mkdtempSync("/var/lib/playform-sandbox-");
const spool = path.join(base, "spool");
/** A folder anyone may write to: only the read-only system keeps the playbook out of it. */
const openDir = path.join(base, "open");

beforeAll(async () => {
  fs.chmodSync(base, 0o755);
  fs.mkdirSync(openDir, { mode: 0o777 });
  fs.chmodSync(openDir, 0o777);
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-sandbox"),
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

it("sees only its own processes, writes only its folder and its /tmp, and sees neither the spool nor another job's folder", async () => {
  expect(app.output()).toMatch(/pid namespace of their own \(bubblewrap\)/);
  const holder = await api.launch("fs-probe", { hold: 300 });
  const otherFolder = (await waitForOutput(holder, /FOLDER=(\S+?)"/))[1]!;
  // Each exists on the runner: a refusal must mean "not for the playbook", never "not there".
  expect(fs.existsSync(path.join(otherFolder, "playbook.yml"))).toBe(true);
  expect(fs.existsSync(path.join(spool, "rte.lock"))).toBe(true);

  const id = await api.launch("fs-probe", { other_folder: otherFolder, spool, open_dir: openDir });
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("success");

  // /proc is the namespace's: playbook-init.py as PID 1, ansible and its children, nothing of
  // the RTE, the app or the other job.
  const processes = [...output.matchAll(/PROC (\d+) (.*?)"/g)].map((m) => ({ pid: Number(m[1]), command: m[2]! }));
  expect(processes.length, output).toBeGreaterThan(1);
  expect(processes.find((p) => p.pid === 1)?.command).toMatch(/playbook-init\.py/);
  for (const p of processes) expect(p.command).not.toMatch(/dist\/(server|rte)\.js|sleep 300|node /);
  expect(processes.length).toBeLessThan(20);

  const refused = (what: string) => new RegExp(`REFUSED: ${what.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\((.*?)\\)"`).exec(output)?.[1];
  expect(refused("touch /sandbox-probe"), output).toBeDefined();
  expect(refused("touch /usr/sandbox-probe")).toMatch(/Read-only file system|Permission denied/);
  // Open to anyone on the runner; the system is read-only to the playbook.
  expect(refused(`touch ${openDir}/sandbox-probe`)).toContain("Read-only file system");
  expect(fs.existsSync(path.join(openDir, "sandbox-probe"))).toBe(false);
  // The jobs folder is hidden: the other job's folder is not there at all.
  expect(refused(`touch ${otherFolder}/sandbox-probe`)).toContain("No such file or directory");
  expect(refused(`ls ${otherFolder}/playbook.yml`)).toContain("No such file or directory");
  expect(fs.existsSync(path.join(otherFolder, "sandbox-probe"))).toBe(false);
  // So is the spool: an empty folder.
  expect(refused(`cat ${spool}/rte.lock`)).toContain("No such file or directory");
  expect(output).toContain("SPOOL HOLDS []");
  // What it may write: its folder and its /tmp.
  expect(output).toMatch(/ALLOWED: touch \S+\/mine"/);
  expect(output).toContain("ALLOWED: touch /tmp/mine");

  const aborted = await api.call("POST", `/api/jobs/${holder}/abort`);
  expect(aborted.status).toBeLessThan(300);
  expect((await api.waitForEnd(holder)).status).toBe("aborted");
});

it("a form with sandbox: {network: false} reaches no port of the runner, not even on 127.0.0.1; another form does", async () => {
  const server = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  try {
    const connect = /(ALLOWED|REFUSED): \S+ -c import socket; socket\.create_connection.*?"/;
    const online = await api.waitForEnd(await api.launch("fs-probe", { probe_port: port }));
    const onlineOutput = await api.output(online.id);
    expect(online.status, onlineOutput).toBe("success");
    expect(connect.exec(onlineOutput)?.[1], onlineOutput).toBe("ALLOWED");

    const offline = await api.waitForEnd(await api.launch("offline-probe", { probe_port: port }));
    const offlineOutput = await api.output(offline.id);
    expect(offline.status, offlineOutput).toBe("success");
    // Its own loopback: nothing listens there.
    expect(connect.exec(offlineOutput)?.[0], offlineOutput).toMatch(/REFUSED: .*Connection refused/);
  } finally {
    server.close();
  }
});

it("runs a playbook as the RTE's own user, whose home is read-only in the sandbox: ansible's temp files go to the job's folder", async () => {
  // The RTE runs as root here, and so does the playbook: the system is read-only to it all the same.
  const own = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-sandbox"),
      RTE_PLAYBOOK_USER: "",
      RTE_JOBS_DIR: path.join(base, "own-jobs"),
    },
  });
  try {
    const ownApi = apiClient(own, await adminToken(own));
    const job = await ownApi.waitForEnd(await ownApi.launch("fs-probe", { open_dir: openDir }));
    const output = await ownApi.output(job.id);
    // Tasks on the runner itself put their modules in ~/.ansible/tmp (the local connection's
    // remote_tmp): read-only, the job was "UNREACHABLE! … Failed to create temporary directory".
    expect(job.status, output).toBe("success");
    expect(output).toMatch(/REFUSED: touch \/usr\/sandbox-probe \(.*Read-only file system/);
    expect(output).toContain("ALLOWED: touch /tmp/mine");
  } finally {
    await own.stop();
  }
}, 180_000);
