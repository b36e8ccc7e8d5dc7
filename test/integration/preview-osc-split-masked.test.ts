/**
 * The preview's plan reads escapes as the masker and the output pane do (attack 9 on issue 34).
 *
 * The masker's raw view (server/security/mask-rendered.ts) ends an OSC at its line's end, as
 * the output pane and the plain-text download do (server/jobs/output.ts strips line by line
 * when the text holds `ESC]`). The preview's plan (server/jobs/preview.ts) strips each stored
 * chunk whole (`stripAnsi(chunk.text)`), where an OSC left open runs on over the line break to
 * the next BEL. A play named `{{ pw[:8] }}\e]0;\n\a{{ pw[8:] }}` (ansible-playbook
 * --list-tasks prints the name templated with the values of the preview, credentials included)
 * is stored as `Wr4ngl3r ESC]0;` / `BEL -s3cret-7f2a9c`: neither the text nor a view of it holds
 * the password, so it is not masked; the output pane shows two pieces, and the preview's plan
 * (GET /api/forms/NAME/preview/ID, the form page's Preview) joins them: the play's name is the
 * password. Attack 8 named it ("not tried"). Fixture: test/fixtures/forms-attack9/preview-osc-split.
 *
 * Now the plan strips line by line too (stripAnsiByLine, server/protocol/ansi.ts): the play's
 * name is broken over two lines, as the pane shows it, and a play line without its TAGS is not
 * read as a play, so the plan has none (as for any play name holding a line break).
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

let app: RunningPlayform;
let api: ApiClient;
const PW = "Wr4ngl3r-s3cret-7f2a9c";

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-attack9") } });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("the preview's plan never shows a password the output masked or split", async () => {
  const started = await api.call("POST", "/api/forms/preview-osc-split/preview", { json: { values: { pw: PW } } });
  expect(started.status, JSON.stringify(started.json)).toBe(201);
  const id = started.json.id as number;
  const plan = await waitFor(
    `preview ${id} to end`,
    async () => {
      const answer = await api.get(`/api/forms/preview-osc-split/preview/${id}`);
      return answer.done ? answer : null;
    },
    { details: () => app.output() },
  );
  expect(plan.status, JSON.stringify(plan)).toBe("success");
  expect(plan.plays, JSON.stringify(plan)).toEqual([]);
  expect(JSON.stringify(plan), "GET /api/forms/NAME/preview/ID").not.toContain(PW);
}, 180_000);
