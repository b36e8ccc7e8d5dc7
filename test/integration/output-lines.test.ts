/**
 * A job's output addressed by line, on a real 200,000-line job (real app, real RTE, real
 * ansible-playbook): windows, tail, the raw log, search, the task index and following from a
 * line, each checked against the whole output read the old way (every chunk in seq order).
 */
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAIN, advanceStyle, styleToSgr } from "../../server/protocol/ansi";
import { chunkLines } from "../../server/protocol/output-lines";
import { UI_CONTRACT_VERSION, UI_NAMESPACE, UiEvents, jobChunksSchema, type OutputChunk } from "../../server/protocol/ui-messages";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbExecute, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";
import { waitFor } from "../support/wait";

const LINES = 200_000;
const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-output");

let app: RunningPlayform;
let api: ApiClient;
let token: string;
let jobId: number;
/** Every line of the job, from its chunks read in seq order: what the line API must agree with. */
const expected: { stream: string; text: string }[] = [];
let raw = "";

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS } });
  token = await adminToken(app);
  api = apiClient(app, token);
  jobId = await api.launch("big-output", { lines: LINES });
  const job = await api.waitForEnd(jobId, 240_000);
  expect(job.status, app.output()).toBe("success");
  let after = 0;
  for (;;) {
    const page = await api.get(`/api/jobs/${jobId}/output?after=${after}&limit=1000`);
    for (const chunk of page.chunks as OutputChunk[]) {
      expect(chunk.firstLine).toBe(expected.length + 1);
      const lines = chunkLines(chunk.text);
      expect(chunk.lineCount).toBe(lines.length);
      for (const text of lines) expected.push({ stream: chunk.stream, text });
      raw += chunk.text;
      after = chunk.seq;
    }
    if (page.chunks.length < 1000) break;
  }
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

describe("a 200,000-line job", () => {
  it("knows its line count, and every line of the playbook is there", async () => {
    const { job } = await api.get(`/api/jobs/${jobId}`);
    expect(job.lines).toBe(expected.length);
    const numbered = expected.filter((l) => /"line \d{8} of the big output"/.test(l.text));
    expect(numbered).toHaveLength(LINES);
  });

  it("numbers the runner's line about the job's files line 1, before the playbook's first line", async () => {
    // By line number as stored (firstLine), not only by seq: the line API and the task index go by line.
    const ready = await dbQuery<{ seq: number; firstLine: number; lineCount: number }>(
      app,
      `SELECT seq, "firstLine", "lineCount" FROM "JobChunk" WHERE "jobId" = $1 AND kind = 'log' AND text LIKE 'job files ready%'`,
      [jobId],
    );
    expect(ready).toHaveLength(1);
    expect(ready[0]!.firstLine).toBe(1);
    expect(ready[0]!.lineCount).toBe(1);
    const [firstOfPlaybook] = await dbQuery<{ seq: number; firstLine: number }>(
      app,
      `SELECT seq, "firstLine" FROM "JobChunk" WHERE "jobId" = $1 AND kind = 'output' AND "lineCount" > 0 ORDER BY "firstLine" LIMIT 1`,
      [jobId],
    );
    expect(firstOfPlaybook!.firstLine).toBeGreaterThan(ready[0]!.firstLine);
    expect(firstOfPlaybook!.seq).toBeGreaterThan(ready[0]!.seq);
    const window = (await api.get(`/api/jobs/${jobId}/lines?from=1&count=5`)) as { lines: { n: number; stream: string; text: string }[] };
    expect(window.lines[0]).toMatchObject({ n: 1, stream: "rte" });
    expect(window.lines[0]!.text).toMatch(/^job files ready: /);
    expect(window.lines.find((l) => l.stream !== "rte")!.n).toBe(firstOfPlaybook!.firstLine);
    expect(window.lines.find((l) => l.text.includes("PLAY [Setup play]"))!.n).toBeGreaterThan(1);
  });

  it("answers any window with exactly the lines of the whole output, and the colour state at its first line", async () => {
    // The colour state at each line, computed from line 1 (runner lines neither take nor change it).
    const states: (string | null)[] = [];
    let style = PLAIN;
    for (const line of expected) {
      states.push(styleToSgr(style));
      if (line.stream !== "rte") style = advanceStyle(style, `${line.text}\n`);
    }
    const total = expected.length;
    const windows: [number, number][] = [
      [1, 500],
      [total - 10, 500],
      [total, 1],
      [Math.floor(total / 2), 5000],
    ];
    for (let i = 0; i < 16; i++) windows.push([1 + Math.floor(Math.random() * total), 1 + Math.floor(Math.random() * 2000)]);
    for (const [from, count] of windows) {
      const window = await api.get(`/api/jobs/${jobId}/lines?from=${from}&count=${count}`);
      const want = expected.slice(from - 1, from - 1 + count);
      expect(window.from).toBe(from);
      expect(window.total).toBe(total);
      expect(window.final).toBe(true);
      expect(window.lines.map((l: { n: number }) => l.n)).toEqual(want.map((_, i) => from + i));
      expect(window.lines.map((l: { stream: string; text: string }) => ({ stream: l.stream, text: l.text }))).toEqual(want);
      expect(window.ansi, `colour at line ${from}`).toBe(states[from - 1]);
    }
    const past = await api.get(`/api/jobs/${jobId}/lines?from=${total + 1}`);
    expect(past.lines).toEqual([]);
    const tail = await api.get(`/api/jobs/${jobId}/lines?tail=100`);
    expect(tail.from).toBe(total - 99);
    expect(tail.lines.map((l: { text: string }) => l.text)).toEqual(expected.slice(-100).map((l) => l.text));
  });

  it("streams the raw log byte for byte as stored, and without colour codes on request", async () => {
    // Raw: the log is a byte stream (text/plain), compared byte for byte.
    const response = await fetch(`${app.url}/api/jobs/${jobId}/log`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="job-${jobId}.log"`);
    const body = Buffer.from(await response.arrayBuffer());
    const stored = await dbQuery<{ text: string }>(
      app,
      `SELECT text FROM "JobChunk" WHERE "jobId" = $1 AND kind IN ('output', 'log') ORDER BY seq`,
      [jobId],
    );
    expect(body.equals(Buffer.from(stored.map((r) => r.text).join(""), "utf8"))).toBe(true);
    expect(body.toString("utf8")).toBe(raw);
    expect(raw).toContain("\x1b[");

    const plain = await (await fetch(`${app.url}/api/jobs/${jobId}/log?ansi=0`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(plain).not.toContain("\x1b");
    expect(plain).toContain("changed: [localhost]");
    expect(plain.split("\n").length).toBe(raw.split("\n").length);
  });

  it("finds lines by text, ignoring case and colour codes unless asked, first 1,000", async () => {
    const lineOf = (needle: string) => expected.findIndex((l) => l.text.includes(needle)) + 1;
    const one = await api.get(`/api/jobs/${jobId}/search?q=${encodeURIComponent("LINE 00123457 OF")}`);
    expect(one).toEqual({ q: "LINE 00123457 OF", matches: [lineOf("line 00123457 of")], truncated: false });
    expect((await api.get(`/api/jobs/${jobId}/search?q=LINE%2000123457&case=1`)).matches).toEqual([]);
    // "changed: [localhost]" is coloured: found in the text without its colour codes.
    expect((await api.get(`/api/jobs/${jobId}/search?q=${encodeURIComponent("changed: [localhost]")}`)).matches).toEqual([
      expected.findIndex((l) => l.text.includes("changed: [localhost]")) + 1,
    ]);
    const many = await api.get(`/api/jobs/${jobId}/search?q=of%20the%20big%20output`);
    expect(many.truncated).toBe(true);
    expect(many.matches).toHaveLength(1000);
    expect(many.matches[0]).toBe(lineOf("line 00000001 of"));
    expect(many.matches[999]).toBe(lineOf("line 00001000 of"));
    const few = await api.get(`/api/jobs/${jobId}/search?q=of%20the%20big%20output&limit=3`);
    expect(few.matches).toEqual(many.matches.slice(0, 3));
  });

  it("indexes where each play, task and the recap start", async () => {
    const { tasks } = await api.get(`/api/jobs/${jobId}/tasks`);
    expect(tasks.map((t: { kind: string; name: string; play: string }) => [t.kind, t.name, t.play])).toEqual([
      ["play", "Setup play", "Setup play"],
      ["task", "Produce lines", "Setup play"],
      ["task", "Print them", "Setup play"],
      ["play", "Second play", "Second play"],
      ["task", "A change", "Second play"],
      ["recap", "PLAY RECAP", "Second play"],
    ]);
    for (const task of tasks as { line: number; kind: string; name: string }[]) {
      const banner = task.kind === "recap" ? "PLAY RECAP" : `${task.kind === "play" ? "PLAY" : "TASK"} [${task.name}]`;
      expect(expected[task.line - 1]!.text).toContain(banner);
    }
  });

  it("sends a follower from a line only the chunks holding the lines after it", async () => {
    const total = expected.length;
    const socket: Socket = io(`${app.url}${UI_NAMESPACE}`, { auth: { token }, transports: ["websocket"] });
    try {
      const received: OutputChunk[] = [];
      socket.on(UiEvents.chunks, (payload: unknown) => received.push(...jobChunksSchema.parse(payload).chunks));
      socket.on("connect", () => socket.emit(UiEvents.follow, { v: UI_CONTRACT_VERSION, jobId, afterLine: total - 5 }));
      await waitFor("the last line", () => received.some((c) => c.firstLine + c.lineCount - 1 === total), { timeoutMs: 15_000 });
      expect(received[0]!.firstLine).toBeLessThanOrEqual(total - 4);
      expect(received[0]!.firstLine + received[0]!.lineCount - 1).toBeGreaterThan(total - 5);
      const lines = received.flatMap((c) => chunkLines(c.text).map((text, i) => ({ n: c.firstLine + i, text })));
      expect(lines.filter((l) => l.n > total - 5).map((l) => l.text)).toEqual(expected.slice(-5).map((l) => l.text));
    } finally {
      socket.close();
    }
  });

  it("gives every live follower each line once, in order: from the start, and joining mid-run from line 0 or from a line", async () => {
    const live = await api.launch("live-ticks", { ticks: 60 });
    await api.waitForStatus(live, "running");
    const follow = (afterLine: number) => {
      const socket: Socket = io(`${app.url}${UI_NAMESPACE}`, { auth: { token }, transports: ["websocket"] });
      const lines = new Map<number, string>();
      let duplicates = 0;
      socket.on(UiEvents.chunks, (payload: unknown) => {
        for (const chunk of jobChunksSchema.parse(payload).chunks) {
          chunkLines(chunk.text).forEach((text, i) => {
            const n = chunk.firstLine + i;
            if (n <= afterLine) return; // the chunk holding both sides of afterLine comes whole
            if (lines.has(n)) duplicates++;
            lines.set(n, text);
          });
        }
      });
      socket.on("connect", () => socket.emit(UiEvents.follow, { v: UI_CONTRACT_VERSION, jobId: live, afterLine }));
      return { socket, lines, duplicates: () => duplicates, afterLine };
    };
    const early = [follow(0), follow(0)];
    await waitFor("some ticks", async () => (await api.get(`/api/jobs/${live}`)).job.lines > 20);
    const midLine = (await api.get(`/api/jobs/${live}`)).job.lines - 5;
    const late = [follow(0), follow(midLine)];
    try {
      const job = await api.waitForEnd(live);
      expect(job.status).toBe("success");
      const total = (await api.get(`/api/jobs/${live}`)).job.lines;
      const all = (await api.get(`/api/jobs/${live}/lines?count=5000`)).lines as { n: number; text: string }[];
      for (const watcher of [...early, ...late]) {
        await waitFor("every line", () => watcher.lines.size === total - watcher.afterLine, { timeoutMs: 15_000 });
        expect(watcher.duplicates()).toBe(0);
        expect([...watcher.lines.keys()]).toEqual(all.filter((l) => l.n > watcher.afterLine).map((l) => l.n));
        expect([...watcher.lines.values()]).toEqual(all.filter((l) => l.n > watcher.afterLine).map((l) => l.text));
      }
    } finally {
      for (const watcher of [...early, ...late]) watcher.socket.close();
    }
  });

  it("numbers a job stored before line addressing on first use, as if it had been numbered when stored", async () => {
    const small = await api.launch("big-output", { lines: 40 });
    expect((await api.waitForEnd(small)).status).toBe("success");
    const before = { lines: await api.get(`/api/jobs/${small}/lines?count=5000`), tasks: await api.get(`/api/jobs/${small}/tasks`) };
    expect(before.lines.lines.length).toBeGreaterThan(40);
    // What a job stored by the previous version looks like after the migration.
    await dbExecute(app, `UPDATE "JobChunk" SET "firstLine" = NULL, "lineCount" = NULL, "ansi" = NULL WHERE "jobId" = $1`, [small]);
    await dbExecute(app, `DELETE FROM "JobMarker" WHERE "jobId" = $1`, [small]);
    await dbExecute(app, `UPDATE "Job" SET "lines" = 0, "outputAnsi" = NULL, "outputIndexed" = false WHERE id = $1`, [small]);
    expect(await api.get(`/api/jobs/${small}/tasks`)).toEqual(before.tasks);
    expect(await api.get(`/api/jobs/${small}/lines?count=5000`)).toEqual(before.lines);
    expect((await api.get(`/api/jobs/${small}`)).job.lines).toBe(before.lines.total);
  });

  it("refuses bad windows and searches with a message, and unknown jobs with 404", async () => {
    const cases: [string, number, RegExp][] = [
      [`/api/jobs/${jobId}/lines?from=0`, 400, /from/],
      [`/api/jobs/${jobId}/lines?count=5001`, 400, /count/],
      [`/api/jobs/${jobId}/lines?from=1&tail=5`, 400, /either from .* or tail/],
      [`/api/jobs/${jobId}/lines?from=abc`, 400, /whole number/],
      [`/api/jobs/${jobId}/search`, 400, /q/],
      [`/api/jobs/${jobId}/search?q=${"x".repeat(201)}`, 400, /200 characters/],
      [`/api/jobs/${jobId}/search?q=a&limit=1001`, 400, /limit/],
      [`/api/jobs/${jobId}/log?ansi=2`, 400, /ansi/],
      [`/api/jobs/999999/lines`, 404, /no job 999999/],
      [`/api/jobs/999999/log`, 404, /no job 999999/],
      [`/api/jobs/999999/search?q=a`, 404, /no job 999999/],
      [`/api/jobs/999999/tasks`, 404, /no job 999999/],
    ];
    for (const [url, status, message] of cases) {
      const answer = await api.call("GET", url);
      expect(answer.status, url).toBe(status);
      expect(answer.json.error?.message ?? JSON.stringify(answer.json), url).toMatch(message);
    }
  });
});

describe("on PostgreSQL", () => {
  let pgApp: RunningPlayform | undefined;
  let postgres: TestPostgres | undefined;

  afterAll(async () => {
    await pgApp?.stop();
    await postgres?.stop();
  });

  it("numbers, windows, searches (ignoring case) and indexes the output as on SQLite", async () => {
    postgres = await startPostgres();
    pgApp = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS, DATABASE_URL: postgres.url } });
    const pgApi = apiClient(pgApp, await adminToken(pgApp));
    const id = await pgApi.launch("big-output", { lines: 3000 });
    expect((await pgApi.waitForEnd(id)).status).toBe("success");
    const all = await pgApi.get(`/api/jobs/${id}/lines?count=5000`);
    expect(all.lines.map((l: { n: number }) => l.n)).toEqual(all.lines.map((_: unknown, i: number) => i + 1));
    const at = all.lines.find((l: { text: string }) => l.text.includes("line 00002345 of"));
    expect((await pgApi.get(`/api/jobs/${id}/search?q=LINE%2000002345`)).matches).toEqual([at.n]);
    expect((await pgApi.get(`/api/jobs/${id}/search?q=LINE%2000002345&case=1`)).matches).toEqual([]);
    const window = await pgApi.get(`/api/jobs/${id}/lines?from=${at.n - 2}&count=5`);
    expect(window.lines).toEqual(all.lines.slice(at.n - 3, at.n + 2));
    const { tasks } = await pgApi.get(`/api/jobs/${id}/tasks`);
    expect(tasks.map((t: { name: string }) => t.name)).toEqual([
      "Setup play",
      "Produce lines",
      "Print them",
      "Second play",
      "A change",
      "PLAY RECAP",
    ]);
  });
});
