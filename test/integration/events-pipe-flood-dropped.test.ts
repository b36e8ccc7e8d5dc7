/**
 * Fifth attack on issue 34 (the open note of attack 4, eventsPartial), end to end: a filter
 * plugin shipped in the form (filter_plugins/flood.py; it runs in ansible-playbook's workers,
 * which inherit the callback plugin's event pipe, PLAYFORM_EVENTS_FD) writes megabytes with no
 * line break to that pipe. (A shell task cannot: /proc/PID/fd/3 of ansible-playbook is refused
 * to it, EACCES; that held.) The
 * RTE keeps the whole line and splits it whole again at every 64 KiB read (quadratic): the
 * writer is slowed to the RTE's pace, and the RTE's event loop, shared by every job of the
 * runner, is busy for that long. Fixture: test/fixtures/forms-attack5/events-flood.
 * Fixed: the batcher drops an events line past EVENTS_LINE_MAX as it comes and looks for line
 * breaks in each new read only.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-attack5") } });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("an events line with no line break written by a form's filter plugin is dropped as it comes, at pipe speed", async () => {
  const job = await api.waitForEnd(await api.launch("events-flood", { mib: 32 }), 600_000);
  const output = await api.output(job.id);
  const said = /wrote 32 MiB to fd \d+ in ([\d.]+) s/.exec(output);
  expect(said, output).not.toBeNull();
  // 32 MiB into a pipe read by a process that does linear work: a second or two (seen: 46.7 s).
  expect({ status: job.status, seconds: Number(said![1]) < 10 ? "< 10 s" : `${said![1]} s` }).toEqual({
    status: "success",
    seconds: "< 10 s",
  });
}, 900_000);
