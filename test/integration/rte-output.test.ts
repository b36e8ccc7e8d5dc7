/**
 * A job's output as a real RTE numbers it: in the order it happened, in items of at most 64 KB,
 * from a playbook running at a lower CPU priority than the RTE (RTE_PLAYBOOK_NICE).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { childPids } from "../support/rte-harness";

const ROOT = path.resolve(import.meta.dirname, "../..");
const NICE = 7;
const JOBS = 6;

interface Chunk {
  seq: number;
  stream: "stdout" | "stderr" | "rte";
  text: string;
}

let app: RunningPlayform;
let api: ApiClient;
let forms: string;

beforeAll(async () => {
  forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-output-forms-"));
  fs.cpSync(path.join(ROOT, "test/fixtures/forms-output"), forms, { recursive: true });
  fs.cpSync(path.join(ROOT, "server/forms/examples/big-output"), path.join(forms, "big-output"), { recursive: true });
  app = await startPlayform({
    env: { PLAYFORM_FORMS_DIR: forms, PLAYFORM_LOCAL_RTE_CAPACITY: String(JOBS), RTE_PLAYBOOK_NICE: String(NICE) },
  });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
  if (forms) fs.rmSync(forms, { recursive: true, force: true });
});

/** Every stored output chunk of a job, by sequence number (the runner's own lines included). */
async function chunks(id: number): Promise<Chunk[]> {
  const all: Chunk[] = [];
  let after = 0;
  for (;;) {
    const page = await api.get(`/api/jobs/${id}/output?after=${after}&limit=500`);
    for (const chunk of page.chunks as Chunk[]) {
      expect(chunk.seq).toBeGreaterThan(after);
      after = chunk.seq;
      all.push(chunk);
    }
    if (page.chunks.length < 500) return all;
  }
}

describe("order", () => {
  it(`numbers the runner's lines from before the playbook started before the playbook's first line (${JOBS} jobs at once)`, async () => {
    const ids = await Promise.all(Array.from({ length: JOBS }, () => api.launch("say-hello")));
    const jobs = await Promise.all(ids.map((id) => api.waitForEnd(id, 120_000)));
    expect(jobs.map((job) => job.status)).toEqual(ids.map(() => "success"));
    for (const id of ids) {
      const stored = await chunks(id);
      const ready = stored.filter((c) => c.stream === "rte" && c.text.includes("job files ready"));
      const firstOfPlaybook = stored.find((c) => c.stream !== "rte");
      expect(ready, `job ${id}: ${JSON.stringify(stored)}`).toHaveLength(1);
      expect(firstOfPlaybook?.text, `job ${id}`).toContain("PLAY [Say hello]");
      expect(ready[0]!.seq, `job ${id}: ${JSON.stringify(stored)}`).toBeLessThan(firstOfPlaybook!.seq);
    }
  });
});

describe("size", () => {
  it("stores ~3 MB printed at once (big-output, 100,000 lines) in items of at most 64 KB, every line once, in order", async () => {
    const job = await api.waitForEnd(await api.launch("big-output", {}), 170_000);
    expect(job.status).toBe("success");
    const stored = await chunks(job.id);
    const stdout = stored.filter((c) => c.stream === "stdout");
    for (const chunk of stdout) expect(Buffer.byteLength(chunk.text)).toBeLessThanOrEqual(64 * 1024);
    expect(stdout.length).toBeGreaterThan(40);
    const numbers = [
      ...stdout
        .map((c) => c.text)
        .join("")
        .matchAll(/"line (\d+)"/g),
    ].map((m) => Number(m[1]));
    expect(numbers).toHaveLength(100_000);
    expect(numbers.every((n, i) => n === i + 1)).toBe(true);
  }, 180_000);
});

describe("CPU priority", () => {
  it(`runs the playbook and everything it starts RTE_PLAYBOOK_NICE (${NICE}) below the RTE`, async () => {
    const rte = childPids(app.pid).find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("rte"));
    expect(rte, "the local RTE process").toBeDefined();
    const rteNice = Number(fs.readFileSync(`/proc/${rte}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
    const expected = Math.min(19, rteNice + NICE);

    const job = await api.waitForEnd(await api.launch("priority-probe"));
    expect(job.status).toBe("success");
    const output = await api.output(job.id);
    expect(output).toMatch(new RegExp(`"task niceness ${expected}"`));
    expect(output).toMatch(new RegExp(`"playbook niceness ${expected} \\(\\S+ \\S*ansible-playbook\\)"`));

    // Where Linux shares the CPU between sessions first, the playbook's session is lowered too.
    const autogroups = fs.existsSync("/proc/sys/kernel/sched_autogroup_enabled")
      ? fs.readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() === "1"
      : false;
    // A process in a CPU cgroup of its own (a container's, say) is scheduled by that cgroup, not
    // by an autogroup: the kernel then prints nothing for it, and there is no session nice to check.
    const rteGroup = autogroups ? / nice (-?\d+)/.exec(fs.readFileSync(`/proc/${rte}/autogroup`, "utf8")) : null;
    if (rteGroup) {
      expect(output).toMatch(new RegExp(`"autogroup: /autogroup-\\d+ nice ${Math.min(19, Number(rteGroup[1]) + NICE)}"`));
    }
  });
});
