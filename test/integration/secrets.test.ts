/**
 * Password values through a real run: masked in the stored output in every common encoding,
 * hidden in the job's values, never in the visible extravars file the form keeps.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { defaultJobsDir } from "../../server/rte/env";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms") } });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
});

it("masks a password value in raw, base64, URL-encoded and JSON-escaped form", async () => {
  const secret = 'S3cret!@/x y"quoted"';
  const id = await api.launch("secret-echo", { api_key: secret, note: "visible" });
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("success");
  expect(job.values).toEqual({ api_key: "********", note: "visible" });

  expect(output).toContain("note=visible");
  expect(output).toContain("raw=********");
  expect(output).toContain("b64=********");
  expect(output).toContain("url=********");
  const encodings = [
    secret,
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64").replace(/=+$/, ""),
    "S3cret%21%40/x%20y",
    JSON.stringify(secret).slice(1, -1),
  ];
  for (const leaked of encodings) expect(output).not.toContain(leaked);

  // keepExtravars keeps the visible file: it must not hold the password.
  const kept = path.join(app.dataDir, "rte/work/extravars", `extravars_${id}.json`);
  expect(JSON.parse(fs.readFileSync(kept, "utf8"))).toEqual({ note: "visible" });
  // The job's folder, with its extravars files (the hidden one holds the password), is gone.
  const jobDir = path.join(defaultJobsDir(path.join(app.dataDir, "rte/work")), String(id));
  expect(fs.existsSync(jobDir)).toBe(false);
});
