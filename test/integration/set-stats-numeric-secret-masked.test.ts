/**
 * Fifth attack on issue 34 (items 1-2, "artifacts/set_stats"): a password field whose value is
 * digits only (a PIN) handed back with `set_stats` as a number (`{{ pin | int }}`). The runner
 * masks events string by string (maskJson): a number is not a string, so the `stats` event goes
 * to the spool, the database and GET /api/jobs/ID/artifacts with the PIN in clear. The same PIN
 * as text is masked (control). Fixture: test/fixtures/forms-attack5/numeric-secret.
 * Fixed: maskJson masks a number whose digits hold a secret (see maskJson in mask.ts).
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const PIN = "48151623";

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-attack5") } });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("masks a numeric password handed back with set_stats as a number (artifacts API and stored events)", async () => {
  const job = await api.waitForEnd(await api.launch("numeric-secret", { pin: PIN }), 120_000);
  expect(job.status, await api.output(job.id)).toBe("success");
  const answer = await api.get(`/api/jobs/${job.id}/artifacts`);
  // Control: the PIN as text is masked.
  expect(answer.artifacts.pin_text).toBe("********");
  const stored = JSON.stringify(await dbQuery(app, `SELECT data FROM "JobChunk" WHERE "jobId" = ? AND kind = 'events'`, [job.id]));
  expect(stored).toContain("pin_text");
  expect(JSON.stringify(answer), "GET /api/jobs/ID/artifacts").not.toContain(PIN);
  expect(stored, "stored events").not.toContain(PIN);
}, 180_000);
