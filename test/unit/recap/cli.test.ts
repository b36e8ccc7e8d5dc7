/** The recap command as users run it: a child process, JSON on stdout, exit codes. */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRecapStream } from "../../../server/recap/cli";

const REPO = join(import.meta.dirname, "../../..");
const TSX = join(REPO, "node_modules/.bin/tsx");
const CLI = join(REPO, "server/recap/cli.ts");
const FIXTURE = join(REPO, "test/fixtures/recap/failed_host");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, asynchronously (so the test's own timeout can still fire). */
function spawnAndWait(command: string, args: string[], input?: string, env?: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { cwd: REPO, encoding: "utf8", timeout: 60_000, env }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}

const run = (args: string[], input?: string) => spawnAndWait(TSX, [CLI, ...args], input);

const expected: unknown = JSON.parse(readFileSync(join(FIXTURE, "expected.json"), "utf8"));

describe("parseRecapStream (the CLI's reading path)", () => {
  it("decodes UTF-8 characters split between byte chunks, and CRLF split between chunks", async () => {
    const text = [
      "PLAY [日本語のプレイ] ***",
      "TASK [パッケージをインストールする] ***",
      "changed: [ノード1]",
      "",
      "PLAY RECAP ***",
      "ノード1                     : ok=1    changed=1    unreachable=0    failed=0",
      "",
    ].join("\r\n");
    const bytes = new TextEncoder().encode(text);
    for (const size of [1, 2, 5, 7]) {
      const chunks = async function* (): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
      };
      const r = await parseRecapStream(chunks());
      expect(r.plays.map((p) => p.name)).toEqual(["日本語のプレイ"]);
      expect(r.changed_tasks).toEqual(["パッケージをインストールする"]);
      expect(r.hosts.map((h) => h.host)).toEqual(["ノード1"]);
    }
  });
});

// Every case starts real processes (tsx compiles the CLI on the fly: a second or two, several on
// a busy machine), so they get a minute each instead of the unit suite's 5 s.
describe("recap CLI", { timeout: 60_000 }, () => {
  it("prints the recap of a log file as 2-space indented JSON", async () => {
    const r = await run([join(FIXTURE, "log.txt")]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expected);
    expect(r.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
  });

  it("reads standard input when the file is -", async () => {
    const r = await run(["-"], readFileSync(join(FIXTURE, "log.txt"), "utf8"));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expected);
  });

  it("exits 2 with one message naming a missing file and the reason", async () => {
    const r = await run(["/nonexistent/run.log"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toEqual(["recap: cannot read '/nonexistent/run.log': no such file or directory"]);
  });

  it("exits 2 with the usage on bad usage", async () => {
    const cases = [[], ["a", "b"], ["--compare", "only-one"], ["--bogus"]];
    const runs = await Promise.all(cases.map((args) => run(args)));
    runs.forEach((r, i) => {
      expect(r.code, JSON.stringify(cases[i])).toBe(2);
      expect(r.stderr).toMatch(/^usage: npm run --silent recap -- LOGFILE/);
    });
  });

  it("compares two logs with --compare", async () => {
    const root = join(REPO, "test/fixtures/recap");
    const r = await run(["--compare", join(root, "roles_handlers/log.txt"), join(root, "check_mode/log.txt")]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { elapsed: unknown; changed_only_second: unknown };
    expect(out.elapsed).toEqual({ a: 41, b: 27, delta_sec: -14 });
    expect(out.changed_only_second).toEqual([]);
  });

  it("npm run recap bundles the CLI once into a cache and runs it with plain node, from memory when the cache cannot be written", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "recap-cache-"));
    try {
      const launcher = join(REPO, "scripts/recap.mjs");
      const withTmp = { ...process.env, TMPDIR: tmp };
      const cache = join(tmp, `playform-recap-${process.getuid?.() ?? "user"}`);
      const first = await spawnAndWait(process.execPath, [launcher, join(FIXTURE, "log.txt")], undefined, withTmp);
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual(expected);
      const built = readdirSync(cache).sort();
      expect(built.filter((f) => f.endsWith(".mjs"))).toHaveLength(1);
      const second = await spawnAndWait(process.execPath, [launcher, join(FIXTURE, "log.txt")], undefined, withTmp);
      expect(second.stdout).toBe(first.stdout);
      expect(readdirSync(cache).sort()).toEqual(built);
      writeFileSync(join(tmp, "a-file"), ""); // TMPDIR under a file: the cache cannot be created
      const noCache = { ...process.env, TMPDIR: join(tmp, "a-file/tmp") };
      const fromMemory = await spawnAndWait(process.execPath, [launcher, join(FIXTURE, "log.txt")], undefined, noCache);
      expect(fromMemory.code).toBe(0);
      expect(fromMemory.stdout).toBe(first.stdout);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("works through the npm script", async () => {
    const r = await spawnAndWait("npm", ["run", "--silent", "recap", "--", join(FIXTURE, "log.txt")]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expected);
  });
});
