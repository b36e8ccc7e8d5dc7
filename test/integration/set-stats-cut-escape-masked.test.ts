/**
 * Attack 9 on issue 34, end to end: a password handed back with `set_stats` with an escape
 * cut short before its last characters (`Summer2024ESC!`, `Summer20ESC[24!`; YAML's `\e`). The
 * runner masks each string of an event on its own (maskJson), and the masker's views leave out
 * an escape cut short at the end of the text (see attack9-mask-cut-escape-at-end.test.ts): the
 * value is stored and served unmasked. The app's own rendering (stripAnsi, parseAnsi: `ESC`
 * or `ESC[` alone is dropped, what follows shown) reads the password whole; the Results panel
 * shows the string as it is (`Summer2024` ESC `!`), GET /api/jobs/ID/artifacts as
 * `"Summer2024\u001b!"`. The same at the end of the output: the fixture's filter (called while
 * the play's name is templated) leaves an exit handler that writes `pw=Summer2024ESC!` after
 * PLAY RECAP, with no line break: GET /api/jobs/ID/log?ansi=0 ends `pw=Summer2024!`. Control:
 * the password as text is masked. Fixture:
 * test/fixtures/forms-attack9/cut-escape-secret.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { stripAnsi } from "../../server/protocol/ansi";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
let token: string;
const PW = "Summer2024!";

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-attack9") } });
  token = await adminToken(app);
  api = apiClient(app, token);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("masks a password with an escape cut short before its end (artifacts API, stored events, the output's last write)", async () => {
  const job = await api.waitForEnd(await api.launch("cut-escape-secret", { pw: PW }), 120_000);
  expect(job.status, await api.output(job.id)).toBe("success");
  const answer = (await api.get(`/api/jobs/${job.id}/artifacts`)) as { artifacts: Record<string, string> };
  expect(answer.artifacts.pw_text).toBe("********");
  const stored = JSON.stringify(await dbQuery(app, `SELECT data FROM "JobChunk" WHERE "jobId" = ? AND kind = 'events'`, [job.id]));
  expect(stored).toContain("pw_esc");
  // What a reader sees: the app drops ESC, `ESC[` (or a JSON-escaped one, in the stored events) and shows the rest.
  const shown = {
    pw_esc: stripAnsi(String(answer.artifacts.pw_esc)).includes(PW),
    pw_csi: stripAnsi(String(answer.artifacts.pw_csi)).includes(PW),
    stored: stored.replace(/\\+u001b\[?/g, "").includes(PW),
    // The output's last write (the fixture's exit handler, after PLAY RECAP): the plain-text download.
    log: (
      await (await fetch(`${app.url}/api/jobs/${job.id}/log?ansi=0`, { headers: { authorization: `Bearer ${token}` } })).text()
    ).includes(PW),
  };
  expect(shown, JSON.stringify(answer.artifacts)).toEqual({ pw_esc: false, pw_csi: false, stored: false, log: false });
}, 180_000);
