/**
 * The install cap holds for the copy into the cache (attack 11 on issue 34), end to end: an install under RTE_REQUIREMENTS_INSTALL_MAX_BYTES (1 MiB
 * here) leaves 256 MiB of disk in the cache. The form's own package (fixture
 * test/fixtures/forms-attack11/pip-sparse, an in-tree PEP 517 backend, offline) truncates
 * `venv/lib/hole.bin` to 256 MiB while pip builds it: no block taken, so the install's disk
 * check (du, blocks) sees nothing and the install succeeds. The RTE then copies the install into
 * the cache entry (copy-tree.ts) by reading and writing every byte: the entry's hole.bin takes
 * 256 MiB, 256 times the cap, written as root where no watch measures. `truncate -s 1T` instead
 * fills the runner's disk. See test/unit/copy-tree-budget-sparse.test.ts for the copy alone.
 *
 * Fixed: the copy is held to the cap (copy-tree.ts), so the job fails with the cap's reason.
 * Before the fix, on the code of the time: the job succeeds and its playbook, run from the cache entry, finds
 * `hole=268435456` (the whole file allocated). A fix keeps the hole (the entry takes what the
 * install took) or fails the install past the cap.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "sparserun";
const CAP = 1024 * 1024;
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack11-forms-"));
const h = new RteHarness(forms, RUNNER);
const api = () => h.api;

beforeAll(async () => {
  const form = path.join(forms, "pip-sparse");
  fs.cpSync(path.resolve(import.meta.dirname, "../fixtures/forms-attack11/pip-sparse"), form, { recursive: true });
  fs.appendFileSync(path.join(form, "form.yaml"), `runner: ${RUNNER}\n`);
  for (const dir of [forms, form, path.join(form, "sparsepkg")]) fs.chmodSync(dir, 0o755);
  await h.start();
  h.startRte({
    instanceId: "sparse-0",
    ...h.dirs("sparse-0"),
    env: { RTE_REQUIREMENTS_INSTALL_MAX_BYTES: "1MiB", RTE_JOB_DISK_CHECK_SECONDS: "1" },
  });
}, 120_000);

afterAll(async () => {
  await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
});

it("an install within the cap does not leave far more than the cap in the cache", async () => {
  const job = await api().waitForEnd(await api().launch("pip-sparse"), 300_000);
  const out = await api().output(job.id);
  if (job.status === "failed") {
    // A fix that fails the install past the cap: with the cap's reason, nothing cached.
    expect(job.statusReason, out).toMatch(/RTE_REQUIREMENTS_INSTALL_MAX_BYTES/);
    return;
  }
  expect(job.status, `${job.statusReason}\n${out}`).toBe("success");
  expect(out).toMatch(/requirements: pip installing/);
  expect(out).toMatch(/python=\S*\/\.requirements\/[0-9a-f]{64}\/venv\//);
  const taken = Number(/hole=(\d+)/.exec(out)?.[1]);
  // Today: 268435456 (256 MiB), from an install measured under 1 MiB.
  expect(taken, out).toBeLessThan(CAP);
}, 400_000);
