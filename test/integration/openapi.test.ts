/**
 * The API reference as served: the OpenAPI document at /api/openapi.json (public, the same
 * document the unit suite checks and the API client validates against) and the Swagger UI
 * page at /api/docs with its files served by the app itself, only the allowed ones. And the
 * README's script, run as pasted (bash, curl, jq) against the app.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiJson } from "../../server/api/openapi";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform();
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
});

describe("the API reference", () => {
  it("serves the generated document without credentials", async () => {
    const answer = await api.call("GET", "/api/openapi.json", { auth: false });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.json).toEqual(JSON.parse(openApiJson()));
    expect(answer.json.openapi).toBe("3.1.0");
  });

  it("serves the Swagger UI page and its files from the app, and nothing else", async () => {
    const page = await fetch(`${app.url}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/api\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toContain("/api/docs/assets/swagger-ui-bundle.js");
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of assets) {
      const answer = await fetch(`${app.url}${asset}`);
      expect(answer.status, asset).toBe(200);
      expect((await answer.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
    expect((await fetch(`${app.url}/api/docs/assets/swagger-ui.css`)).headers.get("content-type")).toMatch(/^text\/css/);
    for (const name of ["package.json", "swagger-ui.js.map", "..%2f..%2fpackage.json", "index.html"]) {
      const refused = await api.call("GET", `/api/docs/assets/${name}`, { auth: false });
      expect(refused.status, name).toBe(404);
      expect(refused.json.error.code).toBe("not_found");
    }
  });
});

describe("the README's script", () => {
  it("runs as pasted: a token, a launch, the wait for its end, its status and its last lines", async () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, "../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("The same from a script"));
    const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    expect(script, "the README has a sh block after 'The same from a script'").toBeDefined();
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: "production",
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      PORT: new URL(app.url).port,
      PLAYFORM_ADMIN_PASSWORD: app.adminPassword,
    };
    const { stdout } = await promisify(execFile)("bash", ["-c", script!], { env, timeout: 120_000 });
    const lines = stdout.trim().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({ status: "success", exitCode: 0 });
    expect(stdout).toContain('"msg": "hi"');
    expect(stdout).toMatch(/PLAY RECAP/);

    // Without the password: a clear word, not 401s.
    const refused = await promisify(execFile)("bash", ["-c", script!], { env: { ...env, PLAYFORM_ADMIN_PASSWORD: "" } }).catch(
      (e: { stderr: string }) => e,
    );
    expect((refused as { stderr: string }).stderr).toContain("export PLAYFORM_ADMIN_PASSWORD=the admin password first");
  });
});
