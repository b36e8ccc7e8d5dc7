/**
 * Attack 11 on issue 34: the copy of every install (server/rte/copy-tree.ts) makes each hard link
 * of the install a file of its own, so the cache entry takes the file's size once per link.
 *
 * The per-install cap (RTE_REQUIREMENTS_INSTALL_MAX_BYTES, disk-usage.ts measure) counts each
 * inode once (`du -B1`, `du --inodes`): an install's own file of 1 MiB linked 60,000 times
 * (`os.link`, its own files: fs.protected_hardlinks allows it) is 1 MiB to the cap. copyTree,
 * as root, writes each link anew (so that no link reaches the entry: attack 9): 60,000 MiB in the
 * cache folder, unmeasured, per such file; a few of them fill the runner's disk. A different
 * door from the sparse file (attack11-copy-sparse-fill.test.ts): a fix keeping holes leaves it.
 *
 * This test: a 1 MiB file of random bytes and 199 more hard links to it (du: 1 MiB), copied by
 * copyTree. On today's code the copy takes about 200 MiB. A fix passes it by copying a file
 * met again (same dev and inode) once and linking the others to that copy in the entry (the
 * RTE's own link, between files of the RTE's), or by counting what the copy writes against the
 * cap and failing the install past it.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { copyTree } from "../../../server/rte/copy-tree";

const FILE = 1024 * 1024;
const LINKS = 200;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack11-links-"));

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function blocksTaken(folder: string): number {
  return Number(/^(\d+)\s/.exec(execFileSync("du", ["-s", "-x", "-B1", "--", folder], { encoding: "utf8" }))?.[1]);
}

it("hard links of the install take no more disk in the cache entry than in the install", async () => {
  const install = path.join(scratch, ".playform_requirements");
  const lib = path.join(install, "venv", "lib");
  fs.mkdirSync(lib, { recursive: true });
  fs.writeFileSync(path.join(lib, "blob-0.bin"), randomBytes(FILE));
  for (let i = 1; i < LINKS; i++) fs.linkSync(path.join(lib, "blob-0.bin"), path.join(lib, `blob-${i}.bin`));
  const measured = blocksTaken(install);
  // What the install's cap sees: the file once.
  expect(measured).toBeLessThan(2 * FILE);

  const entry = path.join(scratch, "entry");
  await copyTree(install, entry);
  const taken = blocksTaken(entry);
  // Today: about 200 MiB (the file once per link), written as root where nothing measures it.
  expect(taken, `the copy took ${taken} bytes of disk for an install of ${measured}`).toBeLessThan(measured + FILE);
}, 120_000);
