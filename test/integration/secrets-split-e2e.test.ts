/**
 * A secret's base64 wrapped at 76 columns with a label before its first line, a pause inside
 * that line (attack 3 on issue 34, findings 1 and 3), end to end: the app, its local RTE under
 * bubblewrap, ansible-playbook, the stored output. Moved from attack3-e2e.test.ts.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({
    env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-secrets-split") },
  });
  api = apiClient(app, await adminToken(app));
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

it("masks a password's base64 wrapped at 76 columns after a label on its first line, a pause inside that line (stored output)", async () => {
  const password = "monitoring-token-8d7f6e5a4b3c2d1e";
  const job = await api.waitForEnd(await api.launch("secret-split", { api_key: password }), 120_000);
  const output = await api.output(job.id);
  expect(job.status, output).toBe("success");
  expect(output).toContain("token: eHh4");
  // 8-character windows of the password's base64, at every alignment: none may be stored.
  const windows: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const bytes = Buffer.from(password).subarray(skip);
    const middle = bytes.subarray(0, 3 * Math.floor(bytes.length / 3)).toString("base64");
    for (let at = 0; at + 8 <= middle.length; at += 2) windows.push(middle.slice(at, at + 8));
  }
  const joined = output.replace(/\n/g, "");
  const leaked = windows.filter((w) => joined.includes(w));
  expect(leaked, output).toEqual([]);
}, 180_000);
