/**
 * Notifications end to end (form.yaml `notify`, docs/forms.md "Notifications"): a real app and
 * its local RTE run the forms of test/fixtures/forms-notify; a webhook receiver and an SMTP
 * server (smtp-server) started here collect what arrives. Checked: the webhook's body (the job's
 * summary, its link, the recap's counts) and its signature with the stored secret, the email
 * with the job's link, the approval event, a receiver answering 500 twice (retried after the
 * backoff, the delivery log showing the attempts), and the admins' list of deliveries.
 */
import { createHmac } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/forms-notify");
const HOOK_SECRET = "hook-secret-value-4711";
const PUBLIC_URL = "https://playform.test.example";

interface Hook {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
}
interface Mail {
  to: string[];
  from: string;
  text: string;
}

let app: RunningPlayform;
let api: ApiClient;
let receiver: http.Server;
let smtp: SMTPServer;
let formsDir: string;
const hooks: Hook[] = [];
const mails: Mail[] = [];
const flakyAnswers = [500, 500];

/** A raw message's text with quoted-printable soft line breaks and escapes undone. */
function decodeMail(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

async function deliveries(jobId: number, settled: (all: any[]) => boolean): Promise<any[]> {
  return waitFor(
    `job ${jobId}'s notifications`,
    async () => {
      const { deliveries: all } = await api.get(`/api/jobs/${jobId}/notifications`);
      return settled(all) && all;
    },
    { timeoutMs: 60_000, details: () => app.output() },
  );
}

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    let raw = "";
    request.setEncoding("utf8").on("data", (chunk: string) => (raw += chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://receiver");
      hooks.push({ path: url.pathname, headers: request.headers, raw, body: JSON.parse(raw), at: Date.now() });
      const status = url.pathname === "/flaky" ? (flakyAnswers.shift() ?? 200) : 200;
      response.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "thanks" : "not now");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  smtp = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: AUTH without TLS, and the app's credentials checked for real.
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "notifier" && auth.password === "smtp-pass-0815") callback(null, { user: auth.username });
      else callback(new Error("bad credentials"));
    },
    onData(stream, session, callback) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => (raw += chunk));
      stream.on("end", () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          text: decodeMail(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  // The fixtures' webhook URLs name RECEIVER_PORT: a copy with this receiver's port.
  formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-notify-forms-"));
  fs.cpSync(FIXTURES, formsDir, { recursive: true });
  for (const form of fs.readdirSync(formsDir)) {
    const file = path.join(formsDir, form, "form.yaml");
    if (!fs.existsSync(file)) continue;
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replaceAll("RECEIVER_PORT", String((receiver.address() as AddressInfo).port)));
  }
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: formsDir,
      PLAYFORM_PUBLIC_URL: PUBLIC_URL,
      PLAYFORM_SMTP_URL: `smtp://notifier:smtp-pass-0815@127.0.0.1:${smtpPort}`,
      PLAYFORM_SMTP_FROM: "Playform <playform@test.example>",
      PLAYFORM_NOTIFY_BACKOFF_SECONDS: "1,1,2",
    },
  });
  api = apiClient(app, await adminToken(app));
  const credential = await api.call("POST", "/api/credentials", {
    json: { name: "hook-secret", kind: "secret", variables: { secret: HOOK_SECRET } },
  });
  expect(credential.status, JSON.stringify(credential.json)).toBe(201);
});

afterAll(async () => {
  await app?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

it("on success: a signed webhook with the job's summary, link and recap counts, and an email with the link", async () => {
  const id = await api.launch("notify-ok");
  expect((await api.waitForEnd(id)).status).toBe("success");
  const log = await deliveries(id, (all) => all.length === 2 && all.every((d) => d.status === "delivered"));
  expect(log.map((d) => [d.event, d.channel, d.target, d.attempts])).toEqual([
    // The URL's query may hold a token: the log shows it elided.
    ["success", "webhook", expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/ok\?…$/), 1],
    ["success", "email", "ops@example.com", 1],
  ]);
  expect(log[0].responseStatus).toBe(200);

  const hook = hooks.find((h) => h.body.event === "success" && h.body.job.id === id)!;
  expect(hook.path).toBe("/ok");
  expect(hook.headers["x-playform-event"]).toBe("success");
  expect(hook.headers["x-playform-delivery"]).toBe(String(log[0].id));
  expect(hook.headers["content-type"]).toBe("application/json");
  expect(hook.headers["x-playform-signature"]).toBe(`sha256=${createHmac("sha256", HOOK_SECRET).update(hook.raw).digest("hex")}`);
  expect(hook.body).toEqual({
    event: "success",
    job: {
      id,
      form: "notify-ok",
      status: "success",
      statusReason: expect.toBeOneOf([null, expect.any(String)]),
      user: "admin",
      runner: "local",
      createdAt: expect.any(String),
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
      url: `${PUBLIC_URL}/jobs/${id}`,
    },
    recap: { hosts: 1, ok: 3, changed: 1, failed: 0, unreachable: 0, skipped: 0, rescued: 0, ignored: 0 },
    artifacts: { release: "2.4.1" },
    artifactsOmitted: null,
    driftedHosts: null,
  });

  const mail = mails.find((m) => m.to.includes("ops@example.com"))!;
  expect(mail.from).toBe("playform@test.example");
  expect(mail.text).toContain(`Subject: [Playform] job #${id} notify-ok succeeded`);
  expect(mail.text).toContain(`Open the job: ${PUBLIC_URL}/jobs/${id}`);
  expect(mail.text).toMatch(/Results \(set_stats\):\r?\n {2}release: 2\.4\.1/);
  expect(mail.text).toContain("ok=3 changed=1 failed=0");
  // Neither the signing key, nor the SMTP password, nor the URL's query reach the app's log.
  expect(app.output()).not.toContain(HOOK_SECRET);
  expect(app.output()).not.toContain("smtp-pass-0815");
  expect(app.output()).not.toContain("query-token");
});

it("on failure: a receiver answering 500 twice gets the webhook again after the backoff; the log shows the attempts", async () => {
  const id = await api.launch("notify-fail");
  expect((await api.waitForEnd(id)).status).toBe("failed");
  const seen: string[] = [];
  const log = await deliveries(id, (all) => {
    for (const d of all) if (d.lastError) seen.push(`${d.attempts} ${d.lastError} ${d.responseStatus}`);
    return all.length === 1 && all[0].status === "delivered";
  });
  expect(log[0]).toMatchObject({ event: "failed", channel: "webhook", attempts: 3, responseStatus: 200, lastError: null });
  expect(seen).toContain("1 HTTP 500 500");
  const calls = hooks.filter((h) => h.path === "/flaky" && h.body.job.id === id);
  expect(calls).toHaveLength(3);
  // Backoff 1 s, then 1 s (PLAYFORM_NOTIFY_BACKOFF_SECONDS): never sooner.
  expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(900);
  expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(900);
  expect(calls.every((c) => c.raw === calls[0]!.raw)).toBe(true);
  expect(calls[0]!.headers["x-playform-signature"]).toBeUndefined();
  expect(calls[0]!.body.job).toMatchObject({ status: "failed", form: "notify-fail", url: `${PUBLIC_URL}/jobs/${id}` });
  expect(calls[0]!.body.recap).toEqual({ hosts: 1, ok: 1, changed: 0, failed: 1, unreachable: 0, skipped: 0, rescued: 0, ignored: 0 });
});

it("on entering approval: an email to the approvers and a webhook without recap", async () => {
  const id = await api.launch("notify-approval");
  expect((await api.get(`/api/jobs/${id}`)).job.status).toBe("approval");
  const log = await deliveries(id, (all) => all.length === 2 && all.every((d) => d.status === "delivered"));
  expect(log.map((d) => [d.event, d.channel]).sort()).toEqual([
    ["approval", "email"],
    ["approval", "webhook"],
  ]);
  const hook = hooks.find((h) => h.body.event === "approval" && h.body.job.id === id)!;
  expect(hook.body.recap).toBeNull();
  expect(hook.body.artifacts).toBeNull();
  expect(hook.body.job.status).toBe("approval");
  expect(hook.headers["x-playform-signature"]).toBe(`sha256=${createHmac("sha256", HOOK_SECRET).update(hook.raw).digest("hex")}`);
  const mail = mails.find((m) => m.to.includes("lead@example.com"))!;
  expect(mail.text).toContain(`Subject: [Playform] job #${id} notify-approval needs approval`);
  expect(mail.text).toContain(`${PUBLIC_URL}/jobs/${id}`);
});

it("lists recent deliveries for admins, by status", async () => {
  const delivered = (await api.get("/api/notifications?status=delivered")).deliveries;
  expect(delivered.length).toBe(5);
  expect(delivered.map((d: { id: number }) => d.id)).toEqual([...delivered.map((d: { id: number }) => d.id)].sort((a, b) => b - a));
  expect((await api.get("/api/notifications?status=failed")).deliveries).toEqual([]);
  expect((await api.get("/api/notifications?limit=2")).deliveries).toHaveLength(2);
  expect((await api.call("GET", "/api/notifications?status=lost")).status).toBe(400);
});
