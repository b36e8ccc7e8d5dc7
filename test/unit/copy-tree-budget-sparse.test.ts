/**
 * The copy of every install into the cache (server/rte/copy-tree.ts, called by
 * RequirementsCache.store) is bounded by the install's cap (attack 11 on issue 34): it turns a
 * sparse file of the install into a full one in the cache.
 *
 * The per-install cap (RTE_REQUIREMENTS_INSTALL_MAX_BYTES, disk-usage.ts measure) counts the
 * blocks a file takes (`du -B1`): a file made with `truncate -s 1T` (ftruncate, one syscall, any
 * install's code: a setup.py, a PEP 517 backend, a collection's build) takes none, so the install
 * is under any cap and succeeds. Then the RTE (root) copies the install into the cache entry by
 * read() and write() of every byte, zeros included: the entry takes the file's whole apparent
 * size, written as root in the cache folder, which no watch measures (the install's watch has
 * ended). A 1 TiB hole fills the runner's disk (ENOSPC for every job and the cache) and keeps the
 * copy, and the install's waiters, busy for the hours it takes.
 *
 * This test: a tree holding one sparse file of 256 MiB (0 blocks), copied by copyTree with a
 * 1 MiB budget. Before the budget the copy took 256 MiB of disk, 256 times the cap, for an install
 * that took nothing; now the file is counted by its size before a byte is written, and the copy
 * stops with CopyOverBudget.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { copyTree, CopyOverBudget } from "../../server/rte/copy-tree";

const HOLE = 256 * 1024 * 1024;
const CAP = 1024 * 1024;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack11-sparse-"));

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function blocksTaken(folder: string): number {
  return Number(/^(\d+)\s/.exec(execFileSync("du", ["-s", "-x", "-B1", "--", folder], { encoding: "utf8" }))?.[1]);
}

it("a sparse file past the cap stops the copy before a byte of it is written", async () => {
  const install = path.join(scratch, ".playform_requirements");
  fs.mkdirSync(path.join(install, "venv", "lib"), { recursive: true });
  const hole = path.join(install, "venv", "lib", "hole.bin");
  fs.writeFileSync(hole, "");
  fs.truncateSync(hole, HOLE);
  const measured = blocksTaken(install);
  // What the install's cap sees: far under a 1 MiB cap.
  expect(measured).toBeLessThan(CAP);

  const entry = path.join(scratch, "entry");
  await expect(copyTree(install, entry, { maxBytes: CAP })).rejects.toBeInstanceOf(CopyOverBudget);
  const taken = blocksTaken(entry);
  // Before the budget: about 256 MiB (the whole apparent size), written as root where nothing measured it.
  expect(taken, `the copy took ${taken} bytes of disk for an install of ${measured}`).toBeLessThan(measured + CAP);
}, 120_000);
