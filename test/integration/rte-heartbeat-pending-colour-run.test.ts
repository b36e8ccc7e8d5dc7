/**
 * A partial line of colour resets held by the output batcher does not stall the RTE: Masker.pending
 * is linear (collapseColourRuns, server/security/mask.ts; unit: test/unit/mask-pending-colour-run-cost.test.ts).
 * Attack 6 on issue 34, before the fix: Masker.pending (server/security/mask.ts) was quadratic in a run of
 * colour escapes that ends in something else, when the tail holds a line break: the RTE's
 * output batcher asks it, on its event loop, what of a partial line to hold back, and
 * BASE64_BREAK_CUT_END (`(?:…ANSI…)$`, unanchored at its start) walks the run to its end from
 * every position. Its window is 64 times the longest form of a secret, so a job with a
 * 4,096-character password looks at up to 262,000 characters.
 * Measured (`npx tsx test/attack/attack6-pending-cost.ts 4096 nl-esc-x`, TIMES=4..64): 16 k
 * characters 0.6 s, 33 k 1.8 s, 66 k 3.9 s, 131 k 14.7 s, 262 k 59.6 s, one call each. The
 * batcher holds a partial line up to 64 Ki characters (longer goes as it is: 65,536 resets
 * HELD end to end with a 20 s timeout), so a call costs about 3.7 s; a filter of the form
 * writes `\n` + 16,370 × `ESC[0m` + `x` to stdout and to stderr at once (both reads ready in one
 * turn of the event loop), six rounds; an unrelated victim job (sleep 70) runs on the same local
 * RTE with a 6 s heartbeat timeout (allowed: >= 4; docs/security.md, "a short heartbeat timeout
 * abandons nothing healthy"). Seen: both jobs `abandoned`, 15.7 s after the stall started.
 * Fixtures: test/fixtures/forms-attack6/pending-stall, test/fixtures/forms-attack5/victim.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { ROOT } from "../support/rte-harness";

let app: RunningPlayform;
let api: ApiClient;
// Both forms in one folder: the stall and an ordinary job.
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack6-forms-"));

beforeAll(async () => {
  fs.cpSync(path.join(ROOT, "test/fixtures/forms-attack6/pending-stall"), path.join(forms, "pending-stall"), { recursive: true });
  fs.cpSync(path.join(ROOT, "test/fixtures/forms-attack5/victim"), path.join(forms, "victim"), { recursive: true });
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: forms, RTE_HEARTBEAT_TIMEOUT_SECONDS: "6" } });
  api = apiClient(app, await adminToken(app));
}, 120_000);
afterAll(async () => {
  await app?.stop();
  fs.rmSync(forms, { recursive: true, force: true });
});

it("a partial line of colour resets with a 4,096-character password set does not stall the runner", async () => {
  const victim = await api.launch("victim", { seconds: 70 });
  await api.waitForStatus(victim, "running", 60_000);
  const key = "k".repeat(16) + Buffer.from(Array.from({ length: 3060 }, (_, i) => (i * 7919) % 256)).toString("base64");
  expect(key.length).toBeGreaterThanOrEqual(4096);
  const started = Date.now();
  const stall = await api.waitForEnd(await api.launch("pending-stall", { key, resets: 16370, rounds: 6 }), 600_000);
  const stallSeconds = (Date.now() - started) / 1000;
  const ended = await api.waitForEnd(victim, 600_000);
  expect({ victim: ended.status, stall: stall.status, stallSeconds }).toEqual({
    victim: "success",
    stall: "success",
    stallSeconds: expect.any(Number),
  });
}, 900_000);
