/**
 * What the RTE writes to disk holds secrets (extravars, keys) or may (output, events): events
 * are masked like output before they reach the spool, and every file is 0600 in a 0700 folder,
 * including folders and files an older version created with the default modes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileCache } from "../../server/rte/file-cache";
import { OutputBatcher } from "../../server/rte/output-batcher";
import { Spool } from "../../server/rte/spool";
import type { UnnumberedItem } from "../../server/protocol/rte-messages";
import { MASK, createMasker } from "../../server/security/mask";
import { createHash } from "node:crypto";

const SECRET = "SimpleSecret12345";
const mode = (file: string) => fs.statSync(file).mode & 0o777;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-private-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("events are masked before they are spooled", () => {
  it("masks loop items, labels (base64 too), task names and plugin errors in callback events", () => {
    const emitted: UnnumberedItem[] = [];
    const batcher = new OutputBatcher({
      intervalMs: 500,
      maxBatchBytes: 64 * 1024,
      maxBuffer: 1024 * 1024,
      mask: createMasker([SECRET]),
      emit: (items) => emitted.push(...items),
    });
    const b64 = Buffer.from(SECRET).toString("base64");
    const events = [
      { v: 1, type: "task_start", task: "t1", name: `use ${SECRET}`, kind: "task" },
      { v: 1, type: "item_result", task: "t1", host: "localhost", status: "ok", item: SECRET },
      { v: 1, type: "item_result", task: "t1", host: "localhost", status: "ok", item: `label ${b64}` },
      { v: 1, type: "plugin_error", where: "x", message: `boom "${SECRET}"` },
    ];
    batcher.writeEvents(events.map((e) => JSON.stringify(e)).join("\n") + "\n");
    batcher.stop();
    const spooled = JSON.stringify(emitted);
    expect(spooled).not.toContain(SECRET);
    expect(spooled).not.toContain(b64.replace(/=+$/, ""));
    const kept = emitted.flatMap((item) => (item.kind === "events" ? item.events : [])) as Record<string, unknown>[];
    expect(kept.map((e) => e.item ?? e.name ?? e.message)).toEqual([`use ${MASK}`, MASK, `label ${MASK}`, `boom "${MASK}"`]);
    // Everything else of an event is unchanged.
    expect(kept[1]).toEqual({ v: 1, type: "item_result", task: "t1", host: "localhost", status: "ok", item: MASK });
  });
});

describe("private modes", () => {
  it("spool: the folder and each job folder 0700, items and acknowledgements 0600", () => {
    const spoolDir = path.join(dir, "spool");
    const spool = new Spool(spoolDir);
    spool.open(3);
    spool.append(3, [{ kind: "start", ts: 1 }]);
    spool.acknowledge(3, [1]);
    expect(mode(spoolDir)).toBe(0o700);
    expect(mode(path.join(spoolDir, "3"))).toBe(0o700);
    expect(mode(path.join(spoolDir, "3", "items.jsonl"))).toBe(0o600);
    expect(mode(path.join(spoolDir, "3", "acked"))).toBe(0o600);
  });

  it("spool: tightens what an older version left with default modes", () => {
    const spoolDir = path.join(dir, "spool");
    fs.mkdirSync(path.join(spoolDir, "4"), { recursive: true, mode: 0o755 });
    fs.chmodSync(spoolDir, 0o755);
    fs.writeFileSync(path.join(spoolDir, "4", "items.jsonl"), JSON.stringify({ seq: 1, kind: "start", ts: 1 }) + "\n", { mode: 0o644 });
    fs.writeFileSync(path.join(spoolDir, "4", "acked"), "0", { mode: 0o644 });
    const spool = new Spool(spoolDir);
    expect(spool.recover()).toEqual([4]);
    expect(mode(spoolDir)).toBe(0o700);
    expect(mode(path.join(spoolDir, "4"))).toBe(0o700);
    expect(mode(path.join(spoolDir, "4", "items.jsonl"))).toBe(0o600);
    expect(mode(path.join(spoolDir, "4", "acked"))).toBe(0o600);
  });

  it("file cache: the cache 0700 and its files 0600; a job's folder 0700 and its files 0600", async () => {
    const cacheDir = path.join(dir, "work", "cache");
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
    fs.chmodSync(cacheDir, 0o755);
    const old = Buffer.from("old: cached by an older version\n");
    const oldHash = createHash("sha256").update(old).digest("hex");
    fs.writeFileSync(path.join(cacheDir, oldHash), old, { mode: 0o644 });
    const cache = new FileCache(cacheDir);
    expect(mode(cacheDir)).toBe(0o700);
    expect(mode(path.join(cacheDir, oldHash))).toBe(0o600);

    const content = Buffer.from("- hosts: all\n");
    const hash = createHash("sha256").update(content).digest("hex");
    const jobDir = path.join(dir, "work", "jobs", "9");
    await cache.materialize(
      [
        { path: "playbook.yml", sha256: hash, size: content.length },
        { path: "group_vars/all.yml", sha256: oldHash, size: old.length },
      ],
      jobDir,
      async () => new Map([[hash, content]]),
    );
    expect(mode(path.join(cacheDir, hash))).toBe(0o600);
    expect(mode(path.join(dir, "work", "jobs"))).toBe(0o700);
    expect(mode(jobDir)).toBe(0o700);
    expect(mode(path.join(jobDir, "group_vars"))).toBe(0o700);
    expect(mode(path.join(jobDir, "playbook.yml"))).toBe(0o600);
    expect(mode(path.join(jobDir, "group_vars", "all.yml"))).toBe(0o600);
  });
});
