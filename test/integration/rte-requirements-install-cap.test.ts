/**
 * A requirements install cannot fill the runner's disk (RTE_REQUIREMENTS_INSTALL_MAX_BYTES,
 * server/rte/job-run.ts `running`): a form's requirements.txt is hostile input, and what its
 * install writes (the cache keeps it after the job) is counted by no job's disk limit. Here
 * the cap is 1 MiB and the runner's find-links folder holds a wheel of 4 MiB of random bytes
 * (incompressible: installed, it takes as much), and a form ships a collection tarball of as
 * much in its own folder: each install fails, before the playbook, with a
 * reason naming the setting, the cap and the size reached; the jobs that waited for that
 * install fail with it (one pip run); nothing reaches the cache. A small wheel's install passes
 * the same cap: what counts is what the install adds to the job's folder, not the form's files.
 * Without the cap both jobs ran their playbook (and the big venv stayed in the cache).
 */
import { execa } from "execa";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultJobsDir } from "../../server/rte/env";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "caprun";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-cap-forms-"));
const sources = fs.mkdtempSync(path.join(os.tmpdir(), "playform-cap-sources-"));
const wheels = path.join(sources, "wheels");
const h = new RteHarness(forms, RUNNER);
let workDir = "";

const PLAYBOOK = `- name: Runs only once its requirements are installed
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Say so
      ansible.builtin.debug:
        msg: "playbook ran"
`;

/** A wheel of `name` 1.0.0 whose package holds `bytes` random bytes. */
async function wheel(name: string, bytes: number): Promise<void> {
  const module = name.replace(/-/g, "_");
  const pkg = path.join(sources, name);
  fs.mkdirSync(path.join(pkg, module), { recursive: true });
  fs.writeFileSync(
    path.join(pkg, "pyproject.toml"),
    `[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "${name}"\nversion = "1.0.0"\n\n` +
      `[tool.setuptools.package-data]\n${module} = ["*.bin"]\n`,
  );
  fs.writeFileSync(path.join(pkg, module, "__init__.py"), "");
  fs.writeFileSync(path.join(pkg, module, "blob.bin"), randomBytes(bytes));
  await execa("/usr/bin/python3", ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", wheels, pkg]);
}

function form(name: string, files: Record<string, string | Buffer>): void {
  const dir = path.join(forms, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "form.yaml"),
    `name: ${name}\ntitle: install cap test ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`,
  );
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
}

/** A collection tarball (playform_cap.big 1.0.0) holding `bytes` random bytes, built offline. */
async function collection(bytes: number): Promise<{ name: string; content: Buffer }> {
  const src = path.join(sources, "collection");
  await execa("ansible-galaxy", ["collection", "init", "playform_cap.big", "--init-path", src]);
  const root = path.join(src, "playform_cap", "big");
  fs.mkdirSync(path.join(root, "files"), { recursive: true });
  fs.writeFileSync(path.join(root, "files", "blob.bin"), randomBytes(bytes));
  const dist = path.join(sources, "collection-dist");
  await execa("ansible-galaxy", ["collection", "build", root, "--output-path", dist]);
  const name = fs.readdirSync(dist).find((file) => file.endsWith(".tar.gz"))!;
  return { name, content: fs.readFileSync(path.join(dist, name)) };
}

beforeAll(async () => {
  await wheel("playform-capbig", 4 * 1024 * 1024);
  await wheel("playform-capsmall", 16 * 1024);
  const big = fs.readdirSync(wheels).find((name) => name.startsWith("playform_capbig-1.0.0-"));
  expect(fs.statSync(path.join(wheels, big!)).size).toBeGreaterThan(4 * 1024 * 1024);
  for (const dir of [sources, wheels]) fs.chmodSync(dir, 0o755);
  for (const name of fs.readdirSync(wheels)) fs.chmodSync(path.join(wheels, name), 0o644);
  form("cap-big", { "requirements.txt": "playform-capbig==1.0.0\n" });
  form("cap-small", { "requirements.txt": "playform-capsmall==1.0.0\n" });
  // In the form's own folder: a tarball of the form counts as the form's files, its extraction as the install's.
  const tarball = await collection(4 * 1024 * 1024);
  form("cap-collection", {
    "requirements.yml": `collections:\n  - name: vendor/${tarball.name}\n    type: file\n`,
    [`vendor/${tarball.name}`]: tarball.content,
  });
  fs.chmodSync(forms, 0o755);
  await h.start();
  const dirs = h.dirs("cap-0");
  workDir = dirs.workDir;
  h.startRte({
    instanceId: "cap-0",
    ...dirs,
    env: { RTE_PIP_FIND_LINKS: wheels, RTE_REQUIREMENTS_INSTALL_MAX_BYTES: "1MiB", RTE_JOB_DISK_CHECK_SECONDS: "1" },
  });
}, 120_000);

afterAll(async () => {
  await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(sources, { recursive: true, force: true });
});

it("an install past RTE_REQUIREMENTS_INSTALL_MAX_BYTES fails its jobs before the playbook, once, and leaves nothing in the cache", async () => {
  const ids = [await h.api.launch("cap-big"), await h.api.launch("cap-big")];
  const jobs = await Promise.all(ids.map((id) => h.api.waitForEnd(id, 300_000)));
  const outputs = await Promise.all(ids.map((id) => h.api.output(id)));
  const reason =
    /^requirements: the install used more than RTE_REQUIREMENTS_INSTALL_MAX_BYTES \(1 MiB\) of the runner's disk: (\d+(?:\.\d)?) MiB \(what it added to the job's folder and \/tmp /;
  for (const [i, job] of jobs.entries()) {
    expect(job.status, outputs[i]).toBe("failed");
    expect(job.statusReason, outputs[i]).toMatch(reason);
    // The size it reached: the wheel's 4 MiB, installed.
    expect(Number(reason.exec(job.statusReason!)![1])).toBeGreaterThanOrEqual(4);
    expect(outputs[i]).toContain("the playbook does not run");
    expect(outputs[i]).not.toContain("playbook ran");
  }
  // One install, shared: the other job waited for it and failed with its reason.
  expect(jobs[0]!.statusReason).toBe(jobs[1]!.statusReason);
  expect(outputs.filter((out) => out.includes("requirements: pip installing")).length, outputs.join("\n----\n")).toBe(1);
  // No entry, no staging folder: only what the cache keeps of itself (a failure record).
  const cache = path.join(defaultJobsDir(workDir), ".requirements");
  expect(fs.readdirSync(cache).filter((name) => /^[0-9a-f]{64}$|^\.staging-/.test(name))).toEqual([]);
}, 400_000);

it("a requirements.yml whose collection tarball unpacks past the cap fails the same way", async () => {
  const id = await h.api.launch("cap-collection");
  const job = await h.api.waitForEnd(id, 300_000);
  const out = await h.api.output(id);
  expect(job.status, out).toBe("failed");
  expect(job.statusReason, out).toMatch(
    /^requirements: the install used more than RTE_REQUIREMENTS_INSTALL_MAX_BYTES \(1 MiB\) of the runner's disk: [4-9](?:\.\d)? MiB /,
  );
  expect(out).not.toContain("playbook ran");
}, 300_000);

it("an install within the cap passes it: the form's own files do not count", async () => {
  const id = await h.api.launch("cap-small");
  const job = await h.api.waitForEnd(id, 300_000);
  const out = await h.api.output(id);
  expect(job.status, `${job.statusReason}\n${out}`).toBe("success");
  expect(out).toContain("playbook ran");
}, 300_000);
