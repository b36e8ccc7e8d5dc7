/**
 * Playbooks from Git: a local bare repository made here (no network) is registered as a
 * source, synced, and its form launched on the real local RTE; the job records the commit.
 * A push and a signed webhook bring the next commit (a bad signature is refused); a broken
 * push keeps the last good version and says why; a deleted branch fails the sync, keeping the
 * last good commit.
 */
import { createHmac } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

let app: RunningPlayform;
let api: ApiClient;
let root: string;
let bare: string;
let work: string;

const git = async (cwd: string, ...args: string[]) =>
  (await execa("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd })).stdout.trim();

function writeForm(message: string, formYaml?: string, name = "from-git"): void {
  const dir = path.join(work, "forms", name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "form.yaml"),
    formYaml ?? `name: ${name}\ntitle: ${name}\nplaybook: playbook.yml\ninventories: [inventory.ini]\nfields: []\n`,
  );
  fs.writeFileSync(
    path.join(dir, "inventory.ini"),
    'localhost ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"\n',
  );
  fs.writeFileSync(
    path.join(dir, "playbook.yml"),
    `- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug:\n        msg: "${message}"\n`,
  );
}

async function commitAndPush(message: string): Promise<string> {
  await git(work, "add", "-A");
  await git(work, "commit", "-q", "-m", message);
  await git(work, "push", "-q", "origin", "HEAD:main");
  return git(work, "rev-parse", "HEAD");
}

const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "playform-git-"));
  bare = path.join(root, "origin.git");
  work = path.join(root, "work");
  await execa("git", ["init", "-q", "--bare", "--initial-branch=main", bare]);
  await execa("git", ["clone", "-q", bare, work]);
  app = await startPlayform();
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

it("imports a repository's forms, runs the committed playbook, follows pushes by webhook and keeps the last good commit", async () => {
  writeForm("first version from git");
  // A form whose jobs wait for approval: one launched before a sync runs the commit it was launched at.
  const gatedYaml = "name: gated\ntitle: Gated\nplaybook: playbook.yml\ninventories: [inventory.ini]\nrequiresApproval: true\nfields: []\n";
  writeForm("gated first version", gatedYaml, "gated");
  // A form named like one of the forms folder (the examples): refused, the folder's one stays.
  writeForm("clash", undefined, "hello-world");
  const first = await commitAndPush("first");

  const created = await api.call("POST", "/api/sources", {
    json: { name: "ops", url: `file://${bare}`, ref: "main", formsPath: "forms", webhook: true },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const secret = created.json.webhookSecret as string;
  expect(secret).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  expect(created.json.source).toMatchObject({ name: "ops", webhook: true, commit: null });
  expect((await api.get("/api/sources/ops")).source.webhookSecret).toBeUndefined();
  // A token in the URL is refused: it belongs in a credential.
  expect((await api.call("POST", "/api/sources", { json: { name: "leak", url: "https://me:tok@git.example/r.git" } })).status).toBe(422);

  const sync = await api.call("POST", "/api/sources/ops/sync");
  expect(sync.status).toBe(200);
  expect(sync.json).toMatchObject({ status: "ok", commit: first, imported: ["from-git", "gated"], error: null });
  expect(sync.json.errors).toEqual(['form "hello-world" not imported: a form of that name exists already, from the forms folder']);
  expect((await api.get("/api/forms/hello-world")).form.title).toBe("Hello world");

  const job1 = await api.waitForEnd(await api.launch("from-git", {}));
  expect(job1.status).toBe("success");
  expect(job1.source).toEqual({ name: "ops", commit: first });
  expect(await api.output(job1.id)).toContain("first version from git");
  const waiting = await api.launch("gated", {});
  await api.waitForStatus(waiting, "approval");

  // A push, then the forge's webhook: a bad signature is refused, a good one accepted.
  writeForm("second version from git");
  writeForm("gated second version", gatedYaml, "gated");
  const second = await commitAndPush("second");
  const body = JSON.stringify({ ref: "refs/heads/main", after: second });
  const bad = await api.call("POST", "/api/sources/ops/webhook", {
    body,
    type: "application/json",
    auth: false,
    headers: { "x-hub-signature-256": sign("not-the-secret", body) },
  });
  expect(bad.status).toBe(401);
  const good = await api.call("POST", "/api/sources/ops/webhook", {
    body,
    type: "application/json",
    auth: false,
    headers: { "x-hub-signature-256": sign(secret, body) },
  });
  expect(good.status).toBe(202);
  await waitFor("the webhook's sync", async () => (await api.get("/api/sources/ops")).source.commit === second, { timeoutMs: 30_000 });

  const job2 = await api.waitForEnd(await api.launch("from-git", {}));
  expect(job2.status).toBe("success");
  expect(job2.source).toEqual({ name: "ops", commit: second });
  expect(await api.output(job2.id)).toContain("second version from git");
  // Approved after the sync, the waiting job runs the commit it was launched at.
  expect((await api.call("POST", `/api/jobs/${waiting}/approve`, { json: {} })).status).toBe(200);
  const gated = await api.waitForEnd(waiting);
  expect(gated).toMatchObject({ status: "success", source: { name: "ops", commit: first } });
  expect(await api.output(waiting)).toContain("gated first version");
  expect(await api.output(waiting)).not.toContain("gated second version");
  // The first job still says what it ran.
  expect((await api.get(`/api/jobs/${job1.id}`)).job.source).toEqual({ name: "ops", commit: first });

  // A broken push: the form is refused with its file and why, and stays at the last good commit.
  writeForm("broken", "name: from-git\ntitle: [unclosed\n");
  const broken = await commitAndPush("broken");
  const brokenSync = await api.call("POST", "/api/sources/ops/sync");
  expect(brokenSync.json.status).toBe("ok");
  expect(brokenSync.json.commit).toBe(broken);
  expect(brokenSync.json.imported).toEqual(["gated"]);
  expect(brokenSync.json.errors).toHaveLength(2);
  expect(brokenSync.json.errors[0]).toContain("forms/from-git/form.yaml");
  const source = (await api.get("/api/sources/ops")).source;
  expect(source.forms).toEqual([
    { name: "from-git", commit: second },
    { name: "gated", commit: broken },
  ]);
  expect(source.syncErrors).toEqual(brokenSync.json.errors);
  const job3 = await api.waitForEnd(await api.launch("from-git", {}));
  expect(job3.source).toEqual({ name: "ops", commit: second });
  expect(await api.output(job3.id)).toContain("second version from git");

  // The branch is deleted: the sync fails, says why, and keeps the last good commit.
  // (On the bare repository itself: a push may not delete its current branch.)
  await git(bare, "update-ref", "-d", "refs/heads/main");
  const gone = await api.call("POST", "/api/sources/ops/sync");
  expect(gone.json).toMatchObject({ status: "failed", commit: broken, imported: [] });
  expect(gone.json.error).toMatch(/couldn't find remote ref main/);
  const failed = (await api.get("/api/sources/ops")).source;
  expect(failed).toMatchObject({ syncStatus: "failed", commit: broken });
  expect(failed.syncError).toMatch(/remote ref main/);
  // The forms refused at the last good sync stay listed (they are still at their previous version).
  expect(failed.syncErrors).toEqual(brokenSync.json.errors);
  expect((await api.waitForEnd(await api.launch("from-git", {}))).status).toBe("success");

  // The audit trail has the syncs, the webhook's with no actor.
  const events = (await api.get("/api/audit?action=source.")).events as { action: string; actor: string | null }[];
  expect(events.filter((e) => e.action === "source.sync" && e.actor === null)).toHaveLength(1);
  expect(events.some((e) => e.action === "source.create")).toBe(true);

  // The webhook turned off: its old secret no longer works.
  const patched = await api.call("PATCH", "/api/sources/ops", { json: { webhook: false, syncIntervalMinutes: 30 } });
  expect(patched.status).toBe(200);
  expect(patched.json.source).toMatchObject({ webhook: false, syncIntervalMinutes: 30 });
  const late = await api.call("POST", "/api/sources/ops/webhook", {
    body,
    type: "application/json",
    auth: false,
    headers: { "x-hub-signature-256": sign(secret, body) },
  });
  expect(late.status).toBe(401);
});

it("refuses http:// with a credential, a token with a URL that is not https://, and a user or host starting with '-' (422 naming the field)", async () => {
  const token = "tok-http-source-123";
  expect((await api.call("POST", "/api/credentials", { json: { name: "git-token", kind: "secret", variables: { token } } })).status).toBe(
    201,
  );
  const refused = async (method: "POST" | "PATCH", url: string, json: Record<string, unknown>, field: string, pattern: RegExp) => {
    const answer = await api.call(method, url, { json });
    expect(answer.status, JSON.stringify(answer.json)).toBe(422);
    expect(JSON.stringify(answer.json)).not.toContain(token);
    expect(answer.json.error.fields?.[field], JSON.stringify(answer.json)).toMatch(pattern);
  };
  await refused("POST", "/api/sources", { name: "clear", url: "http://git.example/ops.git", credential: "git-token" }, "url", /https:\/\//);
  await refused(
    "POST",
    "/api/sources",
    { name: "clear", url: "ssh://git@git.example/ops.git", credential: "git-token" },
    "credential",
    /https token/,
  );
  await refused("POST", "/api/sources", { name: "dash", url: "ssh://-oProxyCommand=touch%20/tmp/x/ops.git" }, "url", /starting with '-'/);
  await refused("POST", "/api/sources", { name: "dash", url: "git@-oProxyCommand=x:ops.git" }, "url", /starting with '-'/);
  expect((await api.call("GET", "/api/sources/clear")).status).toBe(404);
  expect((await api.call("GET", "/api/sources/dash")).status).toBe(404);

  // A public http:// source (no credential) is taken; giving it the token later is not.
  const open = await api.call("POST", "/api/sources", { json: { name: "open", url: "http://git.example/ops.git" } });
  expect(open.status, JSON.stringify(open.json)).toBe(201);
  await refused("PATCH", "/api/sources/open", { credential: "git-token" }, "url", /https:\/\//);
  // Nor can an https source with the token move to http://.
  expect(
    (await api.call("POST", "/api/sources", { json: { name: "tls", url: "https://git.example/ops.git", credential: "git-token" } })).status,
  ).toBe(201);
  await refused("PATCH", "/api/sources/tls", { url: "http://git.example/ops.git" }, "url", /https:\/\//);
  expect((await api.get("/api/sources/tls")).source.url).toBe("https://git.example/ops.git");
  for (const name of ["open", "tls"]) expect((await api.call("DELETE", `/api/sources/${name}`)).status).toBe(204);
});
