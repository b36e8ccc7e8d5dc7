/**
 * Fifth attack on issue 34 (the known slow mask() of repeated `ESC[0m`, measured as the brief
 * asked: can a real playbook stall the RTE past its heartbeat and get other jobs abandoned?).
 * Yes: one `set_stats` string of colour resets (300,000 characters, under the callback plugin's
 * 1 MiB cap of set_stats JSON) is masked by the RTE in one synchronous call at the job's end
 * (maskEvent of the `stats` event): its event loop sends no heartbeat for that long, and the
 * app abandons every job of that runner. Here the heartbeat timeout is 20 s (allowed: >= 4;
 * docs/security.md: "A short heartbeat timeout abandons nothing healthy"). With the default
 * 120 s the same attack at 460 KB (near the cap) ended with both jobs `success` in one run.
 * Fixtures: test/fixtures/forms-attack5/stall and victim.
 * Fixed: where a line may end is found without the colours before it (mask.ts, LINE_END and
 * lineEndStart): masking is linear in the run (test/unit/mask-colour-run-cost.test.ts).
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-attack5"),
      RTE_HEARTBEAT_TIMEOUT_SECONDS: "20",
    },
  });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("a playbook's set_stats string of colour resets does not stall the runner until another job is abandoned", async () => {
  const victim = await api.launch("victim", { seconds: 70 });
  await api.waitForStatus(victim, "running", 60_000);
  const started = Date.now();
  const stall = await api.waitForEnd(await api.launch("stall", { token: "stall-token-1a2b3c4d", kb: 300 }), 400_000);
  const stallSeconds = (Date.now() - started) / 1000;
  const ended = await api.waitForEnd(victim, 400_000);
  expect({ victim: ended.status, stall: stall.status, stallSeconds }).toEqual({
    victim: "success",
    stall: "success",
    stallSeconds: expect.any(Number),
  });
}, 900_000);
