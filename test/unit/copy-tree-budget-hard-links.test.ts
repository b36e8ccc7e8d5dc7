/**
 * The copy of every install into the cache (server/rte/copy-tree.ts) is bounded by the install's
 * cap, whatever the install's own measure said (attack 11 on issue 34). The copy makes each hard
 * link of the install a file of its own, so the cache entry takes the file's size once per link.
 *
 * The per-install cap (RTE_REQUIREMENTS_INSTALL_MAX_BYTES, disk-usage.ts measure) counts each
 * inode once (`du -B1`, `du --inodes`): an install's own file of 1 MiB linked 60,000 times
 * (`os.link`, its own files: fs.protected_hardlinks allows it) is 1 MiB to the cap. copyTree,
 * as root, writes each link anew (so that no link reaches the entry: attack 9): 60,000 MiB in the
 * cache folder, unmeasured, per such file; a few of them fill the runner's disk. A different
 * door from the sparse file (copy-tree-budget-sparse.test.ts): keeping holes alone would leave it.
 *
 * This test: a 1 MiB file of random bytes and 199 more hard links to it (du: 1 MiB), copied by
 * copyTree with the cap as its budget (4 MiB). Before the budget the copy took about 200 MiB;
 * now it stops with CopyOverBudget once the links it wrote pass the budget, and the caller fails
 * the install (RequirementsCache.store).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { copyTree, CopyOverBudget } from "../../server/rte/copy-tree";

const FILE = 1024 * 1024;
const LINKS = 200;
const CAP = 4 * FILE;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack11-links-"));

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function blocksTaken(folder: string): number {
  return Number(/^(\d+)\s/.exec(execFileSync("du", ["-s", "-x", "-B1", "--", folder], { encoding: "utf8" }))?.[1]);
}

it("hard links of the install copied past the cap stop the copy, which takes little more than the cap", async () => {
  const install = path.join(scratch, ".playform_requirements");
  const lib = path.join(install, "venv", "lib");
  fs.mkdirSync(lib, { recursive: true });
  fs.writeFileSync(path.join(lib, "blob-0.bin"), randomBytes(FILE));
  for (let i = 1; i < LINKS; i++) fs.linkSync(path.join(lib, "blob-0.bin"), path.join(lib, `blob-${i}.bin`));
  const measured = blocksTaken(install);
  // What the install's cap sees: the file once.
  expect(measured).toBeLessThan(2 * FILE);

  const entry = path.join(scratch, "entry");
  await expect(copyTree(install, entry, { maxBytes: CAP })).rejects.toBeInstanceOf(CopyOverBudget);
  const taken = blocksTaken(entry);
  // Before the budget: about 200 MiB (the file once per link), written as root where nothing measured it.
  expect(taken, `the copy took ${taken} bytes of disk against a budget of ${CAP}`).toBeLessThanOrEqual(CAP + 64 * 1024);
  // Without a budget (an RTE with the cap off) the copy is whole.
  await copyTree(install, path.join(scratch, "whole"));
  expect(fs.readdirSync(path.join(scratch, "whole", "venv", "lib"))).toHaveLength(LINKS);
}, 120_000);
