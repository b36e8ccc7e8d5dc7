/**
 * Attack 11 on issue 34, probes that HELD (kept as proof; move to test/unit/ to run, imports as
 * they are): copyTree leaves out a FIFO, a socket and a character device (root: mknod) and copies
 * names with newlines; removeTree removes names with newlines and a tree nested 300 deep (past
 * MAX_OPEN_DEPTH 64) and, against a process refilling a folder without end, gives up with
 * ENOTEMPTY in bounded time (MAX_PASSES), never hangs.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { copyTree } from "../../server/rte/copy-tree";
import { removeTree } from "../../server/rte/disk-usage";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack11-probe-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
const root = process.getuid?.() === 0;

it("copyTree leaves out a FIFO, a socket and a device, and copies names with newlines", async () => {
  const from = path.join(scratch, "from");
  fs.mkdirSync(from);
  execFileSync("mkfifo", [path.join(from, "fifo")]);
  execFileSync("python3", ["-c", `import socket; s=socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(path.join(from, "sock"))})`]);
  if (root) execFileSync("mknod", [path.join(from, "zero"), "c", "1", "5"]);
  fs.writeFileSync(path.join(from, "a\nb"), "x");
  fs.mkdirSync(path.join(from, "d\n"));
  fs.writeFileSync(path.join(from, "d\n", "\nf"), "y");
  const to = path.join(scratch, "to");
  await copyTree(from, to);
  expect(fs.readdirSync(to).sort()).toEqual(["a\nb", "d\n"]);
  expect(fs.readFileSync(path.join(to, "d\n", "\nf"), "utf8")).toBe("y");
});

it("removeTree removes names with newlines and a tree 300 deep", async () => {
  const top = path.join(scratch, "deep");
  let dir = top;
  fs.mkdirSync(top);
  for (let i = 0; i < 300; i++) {
    dir = path.join(dir, i % 2 ? "n\nl" : "d");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "f\n"), "z");
  }
  await removeTree(top);
  expect(fs.existsSync(top)).toBe(false);
}, 60_000);

it("removeTree against a folder refilled without end gives up in bounded time", async () => {
  const top = path.join(scratch, "refill");
  fs.mkdirSync(path.join(top, "sub"), { recursive: true });
  const writer = spawn("python3", [
    "-c",
    `import os,time\nt=time.time()+20\ni=0\nwhile time.time()<t:\n  i+=1\n  try: open(os.path.join(${JSON.stringify(path.join(top, "sub"))},str(i)),"w").close()\n  except OSError: os.makedirs(${JSON.stringify(path.join(top, "sub"))},exist_ok=True)`,
  ]);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const result = await removeTree(top).then(
      () => "removed",
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(["removed", "ENOTEMPTY"]).toContain(result);
  } finally {
    writer.kill();
  }
}, 60_000);

it("copyTree of a tree deeper than PATH_MAX allows for its copy fails with an error, in bounded time", async () => {
  const from = path.join(scratch, "deepcopy");
  fs.mkdirSync(from);
  // mkdir and chdir in a loop, as an install would: no path of it is ever short enough.
  execFileSync("python3", [
    "-c",
    `import os\nos.chdir(${JSON.stringify(from)})\nfor i in range(3000):\n  os.mkdir("a")\n  os.chdir("a")\nopen("f","w").write("x")`,
  ]);
  const started = Date.now();
  const result = await copyTree(from, path.join(scratch, "deepcopy-to")).then(
    () => "copied",
    (error: NodeJS.ErrnoException) => error.code,
  );
  expect(Date.now() - started).toBeLessThan(30_000);
  expect(["copied", "ENAMETOOLONG"]).toContain(result);
  await removeTree(from);
  await removeTree(path.join(scratch, "deepcopy-to"));
  expect(fs.existsSync(from)).toBe(false);
}, 60_000);
