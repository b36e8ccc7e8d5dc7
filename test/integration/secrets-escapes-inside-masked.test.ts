/**
 * Attack 7 on issue 34, end to end: a password printed through `grep --color=always` (a config
 * file with its numbers highlighted; the secret's base64 piped through `grep --color=always .`).
 * grep puts `ESC[01;31mESC[K` and `ESC[mESC[K` inside the secret (around each of its digit
 * runs) and around each line of its base64. The runner stores the output with the escapes, so
 * the masker matches nothing; the app's own plain-text download (`GET /api/jobs/ID/log?ansi=0`,
 * "Download the output as plain text") and its output pane remove the escapes and show the
 * secret whole (printed raw: a `pause` prompt); printed by `debug` the escapes are JSON-escaped
 * (`\u001b[01;31m\u001b[K`) between the pieces of the secret, which a reader skips. Fixture: test/fixtures/forms-attack7/escapes-secret.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
let token: string;
const PW = "Wr4ngl3r-s3cret-7f2a9c";

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-attack7") } });
  token = await adminToken(app);
  api = apiClient(app, token);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("does not serve a secret that grep --color=always printed, once the escapes are removed", async () => {
  const job = await api.waitForEnd(await api.launch("escapes-secret", { pw: PW }), 120_000);
  const output = await api.output(job.id);
  expect(job.status, output).toBe("success");
  expect(output, "the stored output holds the raw secret").not.toContain(PW);
  const answer = await fetch(`${app.url}/api/jobs/${job.id}/log?ansi=0`, { headers: { authorization: `Bearer ${token}` } });
  expect(answer.status).toBe(200);
  const plain = await answer.text();
  expect(plain).toContain("port=");
  // The pause prompt printed grep's output raw: the app removes the escapes.
  const lines = plain.split("\n");
  const prompt = lines.lastIndexOf("port=5432");
  const base64 = lines
    .slice(prompt + 2, prompt + 4)
    .join("")
    .replace(/:$/, "");
  const decoded = Buffer.from(base64, "base64").toString("latin1");
  // The debug task printed it JSON-escaped: `\u001b[01;31m` between its pieces, which a reader skips.
  const read = output.replace(/\\u001b\[[0-9;]*[A-Za-z]/g, "");
  expect({
    plainHasSecret: plain.includes(PW),
    base64DecodesToSecret: decoded.includes(PW),
    jsonReadsAsSecret: read.includes(PW),
  }).toEqual({ plainHasSecret: false, base64DecodesToSecret: false, jsonReadsAsSecret: false });
}, 180_000);
