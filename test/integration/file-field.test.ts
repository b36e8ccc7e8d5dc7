/**
 * The `file` field end to end, with the real app and its local RTE: an upload through
 * POST /api/uploads, a launch that names it, the playbook reading the file at the absolute path
 * its extravar holds in the job folder, and the file gone with the folder. Refusals: too large
 * (before and while reading), a type the field does not accept, someone else's upload.
 * The form: test/fixtures/forms-files/keyfile-echo.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const FORMS_DIR = path.resolve(import.meta.dirname, "../fixtures/forms-files");

let app: RunningPlayform;
let admin: ApiClient;
let adminBearer: string;
let other: ApiClient;

const upload = (client: ApiClient, name: string, content: string, type = "application/octet-stream") => {
  const body = new FormData();
  body.append("file", new Blob([content], { type }), name);
  return client.call("POST", "/api/uploads?form=keyfile-echo&field=keyfile", { body });
};

const launch = (client: ApiClient, id: string) =>
  client.call("POST", "/api/jobs", { json: { form: "keyfile-echo", values: { keyfile: id } } });

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS_DIR } });
  adminBearer = await adminToken(app);
  admin = apiClient(app, adminBearer);
  expect((await admin.call("POST", "/api/users", { json: { username: "other", password: "pw-other-0123456789" } })).status).toBe(201);
  const token = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from("other:pw-other-0123456789").toString("base64")}` },
  });
  other = apiClient(app, ((await token.json()) as { token: string }).token);
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

it("hands the playbook the uploaded file's absolute path in the job folder, and removes it with the folder", async () => {
  const stored = await upload(admin, "id.pem", "-----BEGIN TEST KEY-----");
  expect(stored.status, JSON.stringify(stored.json)).toBe(201);
  expect(stored.json).toMatchObject({ name: "id.pem", size: 24, contentType: "application/octet-stream" });
  const launched = await launch(admin, stored.json.id);
  expect(launched.status, JSON.stringify(launched.json)).toBe(201);
  const job = await admin.waitForEnd(launched.json.id);
  const output = await admin.output(job.id);
  expect(job.status, output).toBe("success");
  const shown = /KEYFILE PATH (\S+?)"/.exec(output)?.[1];
  expect(shown, output).toBeDefined();
  expect(path.isAbsolute(shown!)).toBe(true);
  expect(shown!).toMatch(new RegExp(`/${job.id}/\\.playform_uploads/keyfile/id\\.pem$`));
  expect(output).toContain("KEYFILE CONTENT -----BEGIN TEST KEY-----");
  expect(output).toContain("KEYFILE STAT exists=True size=24");
  // The job's values keep the upload id (a relaunch sends it again); the file went with the job folder.
  expect(job.values.keyfile).toBe(stored.json.id);
  expect(fs.existsSync(shown!)).toBe(false);
  expect(fs.existsSync(path.dirname(path.dirname(path.dirname(shown!))))).toBe(false);

  // The same upload again (what "Run again" does), after a job used it.
  const again = await launch(admin, stored.json.id);
  expect(again.status, JSON.stringify(again.json)).toBe(201);
  expect((await admin.waitForEnd(again.json.id)).status).toBe("success");
  expect(await admin.output(again.json.id)).toContain("KEYFILE CONTENT -----BEGIN TEST KEY-----");
});

it("refuses a file over the field's maxSize with 413, before reading when Content-Length says so", async () => {
  const streamed = await upload(admin, "big.pem", "A".repeat(2000));
  expect(streamed.status).toBe(413);
  expect(streamed.json.error.message).toBe("big.pem is larger than 1 KB, the field allows at most 1 KB");
  const declared = await upload(admin, "huge.pem", "A".repeat(64 * 1024));
  expect(declared.status).toBe(413);
  expect(declared.json.error.message).toMatch(/^the upload is 64\.\d KB, the field allows at most 1 KB$/);
  // The connection that was refused does not stop the app from answering the next upload.
  expect((await upload(admin, "small.txt", "fine")).status).toBe(201);
});

it("refuses a streamed upload without Content-Length as soon as it passes the limit", async () => {
  const boundary = "playform-test-boundary";
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="stream.pem"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const chunk = new Uint8Array(64 * 1024).fill(65);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(head));
    },
    pull(controller) {
      if (sent >= 4 * 1024 * 1024) {
        controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
        controller.close();
        return;
      }
      controller.enqueue(chunk);
      sent += chunk.length;
    },
  });
  const response = await fetch(`${app.url}/api/uploads?form=keyfile-echo&field=keyfile`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminBearer}`, "content-type": `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: "half",
  } as RequestInit);
  expect(response.status).toBe(413);
  expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
    "stream.pem is larger than 1 KB, the field allows at most 1 KB",
  );
});

it("refuses a type the field does not accept with 422 naming the allowed types", async () => {
  const answer = await upload(admin, "photo.png", "not a key", "image/png");
  expect(answer.status).toBe(422);
  expect(answer.json.error.message).toBe("photo.png (image/png) is not a type this field accepts: .txt, .pem");
  expect(answer.json.error.fields).toEqual({ keyfile: answer.json.error.message });
});

it("refuses another user's upload at launch, and an upload for another field", async () => {
  const theirs = await upload(other, "their.pem", "their key");
  expect(theirs.status).toBe(201);
  const answer = await launch(admin, theirs.json.id);
  expect(answer.status).toBe(422);
  expect(answer.json.error.fields).toEqual({ keyfile: "is not a file uploaded for this field" });
  const wrongField = await admin.call("POST", "/api/uploads?form=keyfile-echo&field=nope", { body: new FormData() });
  expect(wrongField.status).toBe(400);
  expect(wrongField.json.error.message).toBe('form "keyfile-echo" has no file field "nope"');
  const noForm = await admin.call("POST", "/api/uploads?form=no-such-form&field=keyfile", { body: new FormData() });
  expect(noForm.status).toBe(404);
});

it("with RTE_FILES=local, asks the app for the uploaded file (it is not in the shared form folder)", async () => {
  // The local RTE inherits RTE_* variables from the app's environment.
  const shared = await startPlayform({ env: { RTE_FILES: "local", PLAYFORM_FORMS_DIR: FORMS_DIR } });
  try {
    const client = apiClient(shared, await adminToken(shared));
    const stored = await upload(client, "shared.txt", "from the upload store");
    expect(stored.status, JSON.stringify(stored.json)).toBe(201);
    const launched = await launch(client, stored.json.id);
    expect(launched.status, JSON.stringify(launched.json)).toBe(201);
    const job = await client.waitForEnd(launched.json.id);
    const output = await client.output(job.id);
    expect(job.status, output).toBe("success");
    expect(output).toContain("job files ready: 3 read from the shared folder (uploaded files from the app), 0 from the cache");
    expect(output).toContain("KEYFILE CONTENT from the upload store");
  } finally {
    await shared.stop();
  }
}, 120_000);
