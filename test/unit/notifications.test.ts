/**
 * Notifications (form.yaml `notify`): the schema, the webhook's body and signature, the email's
 * text, the backoff; then, against a real SQLite database and a real HTTP receiver in this
 * process, the lifecycle enqueuing each delivery once and two senders sending it once.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../server/data/db";
import type { JobView } from "../../server/data/jobs";
import { newJobInput } from "../support/new-job";
import { listJobDeliveries } from "../../server/data/notifications";
import { describeZodError, formDefinitionSchema } from "../../server/forms/definition";
import { notifyTargets } from "../../server/forms/notify";
import { JobLifecycle } from "../../server/jobs/lifecycle";
import { CATCH_UP_GRACE_MS, CATCH_UP_WINDOW_MS, enqueueMissedNotifications } from "../../server/jobs/notify";
import { NO_SMTP, NotificationSender, postWebhook } from "../../server/jobs/notify-delivery";
import {
  DEFAULT_BACKOFF_SECONDS,
  emailSubject,
  emailText,
  notificationArtifacts,
  NOTIFY_ARTIFACTS_MAX_BYTES,
  nextAttemptAt,
  notificationBody,
  parseBackoff,
  recapCounts,
  signature,
} from "../../server/jobs/notify-message";
import type { Recap, RecapHostRow } from "../../server/recap/types";
import { hostRow as row, recap as emptyRecap } from "../support/recap-rows";
import { useTempSqliteDatabase } from "../support/temp-db";

const minimal = { name: "deploy-app", title: "Deploy the app", playbook: "site.yml" };
const recap = (hosts: RecapHostRow[], partial?: RecapHostRow[]): Recap =>
  emptyRecap({ hosts, status: partial ? "incomplete" : "successful", ...(partial ? { partial_hosts: partial } : {}) });
const job: JobView = {
  id: 12,
  form: "hello-world",
  status: "failed",
  statusReason: "exit code 2",
  exitCode: 2,
  runner: "local",
  environment: null,
  user: "alice",
  values: { secret_value: "never sent" },
  runOptions: {},
  abortRequested: false,
  decidedBy: null,
  createdAt: "2026-01-02T03:04:05.000Z",
  startedAt: "2026-01-02T03:04:06.000Z",
  finishedAt: "2026-01-02T03:04:09.000Z",
  lastSeq: 10,
  lines: 40,
  relaunchOf: null,
  outputPurgedAt: null,
  outputTruncated: false,
  source: null,
  launchedBy: null,
  drift: false,
  plan: null,
};

describe("form.yaml notify", () => {
  it("reads webhooks and email lists per event, one target per channel and address", () => {
    const form = formDefinitionSchema.parse({
      ...minimal,
      notify: [
        { on: ["failed", "abandoned"], webhook: { url: "https://hooks.example.com/playform", secret: "hook-secret" } },
        { on: ["approval", "failed"], email: ["ops@example.com", "lead@example.com"] },
        { on: ["failed"], email: ["OPS@example.com"], webhook: { url: "https://hooks.example.com/playform" } },
      ],
    });
    expect(notifyTargets(form.notify, "failed")).toEqual([
      { channel: "webhook", target: "https://hooks.example.com/playform" },
      { channel: "email", target: "ops@example.com" },
      { channel: "email", target: "lead@example.com" },
    ]);
    expect(notifyTargets(form.notify, "approval").map((t) => t.target)).toEqual(["ops@example.com", "lead@example.com"]);
    expect(notifyTargets(form.notify, "success")).toEqual([]);
  });

  it("refuses bad entries, naming where", () => {
    const problems = (notify: unknown) => {
      const parsed = formDefinitionSchema.safeParse({ ...minimal, notify });
      return parsed.success ? "" : describeZodError(parsed.error);
    };
    expect(problems([{ on: ["finished"], email: ["a@example.com"] }])).toMatch(/^notify\.0\.on\.0: /);
    expect(problems([{ on: ["failed"] }])).toMatch(/^notify\.0: needs a webhook or an email list/);
    expect(problems([{ on: ["failed"], webhook: { url: "ftp://example.com/x" } }])).toMatch(
      /^notify\.0\.webhook\.url: must be an http or https URL/,
    );
    expect(problems([{ on: ["failed"], email: ["not an address"] }])).toMatch(/^notify\.0\.email\.0: must be an email address/);
    expect(problems([{ on: ["failed"], webhook: { url: "https://x.example/", secret: "Bad Name" } }])).toMatch(
      /^notify\.0\.webhook\.secret: /,
    );
    expect(problems([{ on: [], email: ["a@example.com"] }])).toMatch(/^notify\.0\.on: needs at least one event/);
  });
});

describe("the message", () => {
  it("signs the raw body with HMAC-SHA256 (a known vector)", () => {
    expect(signature("The quick brown fox jumps over the lazy dog", "key")).toBe(
      "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
    );
  });

  it("sums PLAY RECAP's counts over the hosts, or an incomplete run's counts so far", () => {
    const rows = [
      row("web1", { ok: 3, changed: 1, failed: 1, skipped: 2 }),
      row("web2", { ok: 2, unreachable: 1, rescued: 1, ignored: 4 }),
    ];
    expect(recapCounts(recap(rows))).toEqual({
      hosts: 2,
      ok: 5,
      changed: 1,
      failed: 1,
      unreachable: 1,
      skipped: 2,
      rescued: 1,
      ignored: 4,
    });
    expect(recapCounts(recap([], [row("db1", { ok: 1, changed: 2 })]))).toMatchObject({ hosts: 1, ok: 1, changed: 2 });
  });

  it("builds the webhook's body: the job's summary, its link and the counts (no values); null recap for approval", () => {
    const body = notificationBody("failed", job, recap([row("web1", { ok: 2, failed: 1 })]), "https://playform.example.com/");
    expect(body).toEqual({
      event: "failed",
      job: {
        id: 12,
        form: "hello-world",
        status: "failed",
        statusReason: "exit code 2",
        user: "alice",
        runner: "local",
        createdAt: "2026-01-02T03:04:05.000Z",
        startedAt: "2026-01-02T03:04:06.000Z",
        finishedAt: "2026-01-02T03:04:09.000Z",
        url: "https://playform.example.com/jobs/12",
      },
      recap: { hosts: 1, ok: 2, changed: 0, failed: 1, unreachable: 0, skipped: 0, rescued: 0, ignored: 0 },
      artifacts: null,
      artifactsOmitted: null,
      driftedHosts: null,
    });
    expect(JSON.stringify(body)).not.toContain("never sent");
    expect(notificationBody("approval", { ...job, status: "approval" }, null, "http://x").recap).toBeNull();
  });

  it("names the hosts a drift check found would change, in the body and the email", () => {
    const drift = notificationBody(
      "drift",
      { ...job, status: "success", drift: true },
      recap([row("db1", { ok: 2 }), row("web1", { ok: 1, changed: 1 }), row("web2", { ok: 1, changed: 3 })]),
      "https://playform.example.com",
    );
    expect(drift.driftedHosts).toEqual(["web1", "web2"]);
    expect(emailSubject(drift)).toBe("[Playform] job #12 hello-world found hosts drifted");
    expect(emailText(drift)).toContain("Drifted: web1, web2 (check mode found changes; each host's page has the diff)");
  });

  it("writes the email's subject and text with the counts and the link", () => {
    const body = notificationBody("failed", job, recap([row("web1", { ok: 2, failed: 1 })]), "https://playform.example.com");
    expect(emailSubject(body)).toBe("[Playform] job #12 hello-world failed");
    const text = emailText(body);
    expect(text).toContain("ok=2 changed=0 failed=1 unreachable=0");
    expect(text).toContain("Open the job: https://playform.example.com/jobs/12");
    expect(emailSubject({ ...body, event: "approval" })).toBe("[Playform] job #12 hello-world needs approval");
  });

  it("carries what the playbook handed back (set_stats), up to 64 KiB, and says why when it does not", () => {
    const counts = recap([row("web1", { ok: 2 })]);
    const results = { cluster_id: "c-1", nodes: ["n1", "n2"], note: "x".repeat(300) };
    const body = notificationBody("success", job, counts, "http://x", notificationArtifacts({ artifacts: results, error: null }));
    expect(body.artifacts).toEqual(results);
    expect(body.artifactsOmitted).toBeNull();
    const text = emailText(body);
    expect(text).toContain('Results (set_stats):\n  cluster_id: c-1\n  nodes: ["n1","n2"]\n  note: ' + "x".repeat(200) + "…\n");

    expect(notificationArtifacts({ artifacts: {}, error: null })).toEqual({ artifacts: {}, artifactsOmitted: null });
    expect(
      emailText(notificationBody("success", job, counts, "http://x", notificationArtifacts({ artifacts: {}, error: null }))),
    ).not.toContain("Results");
    expect(notificationArtifacts(null)).toEqual({ artifacts: null, artifactsOmitted: null });
    const refused = notificationArtifacts({
      artifacts: {},
      error: "set_stats data of 2000000 bytes is over the 1048576-byte cap (1 MiB): not kept",
    });
    expect(refused).toEqual({ artifacts: null, artifactsOmitted: expect.stringContaining("over the 1048576-byte cap") });
    const big = notificationArtifacts({ artifacts: { blob: "y".repeat(NOTIFY_ARTIFACTS_MAX_BYTES) }, error: null });
    expect(big.artifacts).toBeNull();
    expect(big.artifactsOmitted).toMatch(/^set_stats data of \d+ bytes is over the 65536 bytes a notification carries: see the job$/);
    expect(emailText(notificationBody("success", job, counts, "http://x", big))).toContain("Results (set_stats):\n  set_stats data of");
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]));
    expect(
      emailText(notificationBody("success", job, counts, "http://x", notificationArtifacts({ artifacts: many, error: null }))),
    ).toContain("  k19: 19\n  … and 5 more on the job's page");
  });

  it("retries after each delay of the backoff, then gives up", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    expect(DEFAULT_BACKOFF_SECONDS).toEqual([10, 30, 120, 600, 1800]);
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => nextAttemptAt(attempt, DEFAULT_BACKOFF_SECONDS, now));
    expect(delays.map((at) => (at ? (at.getTime() - now.getTime()) / 1000 : null))).toEqual([10, 30, 120, 600, 1800, null]);
    expect(parseBackoff(undefined)).toEqual([10, 30, 120, 600, 1800]);
    expect(parseBackoff(" 1, 1,2 ")).toEqual([1, 1, 2]);
    expect(() => parseBackoff("1,soon")).toThrow(/separated by commas/);
    expect(() => parseBackoff("-1")).toThrow();
  });
});

describe("enqueued once, sent once", () => {
  let cleanup: () => Promise<void>;
  let receiver: http.Server;
  let url: string;
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let answers: number[] = [];
  const lifecycle = new JobLifecycle({ publish: () => undefined, wakeDispatcher: () => undefined });
  const newJob = newJobInput({ formId: "form-n", formName: "notified" });
  const sender = () => new NotificationSender({ publicUrl: "https://playform.example.com", backoffSeconds: [0, 0] });

  beforeAll(async () => {
    ({ cleanup } = await useTempSqliteDatabase());
    receiver = http.createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      request.on("end", () => {
        received.push({ headers: request.headers, body });
        response.writeHead(answers.shift() ?? 200).end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?token=abc123`;
    const definition = formDefinitionSchema.parse({
      ...minimal,
      name: "notified",
      notify: [
        { on: ["failed", "approval"], webhook: { url } },
        { on: ["failed"], email: ["ops@example.com"] },
      ],
    });
    const db = getDb();
    await db.user.create({ data: { id: "user-1", username: "alice", passwordHash: "x", role: "admin" } });
    await db.form.create({
      data: { id: "form-n", name: "notified", title: "Notified", definition: definition as object, sourceDir: "/nowhere" },
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    await cleanup?.();
  });

  it("enqueues on entering approval and on the final move, once per target even when the move is seen twice", async () => {
    const waiting = await lifecycle.create(newJob, true);
    expect((await listJobDeliveries(waiting)).map((d) => [d.event, d.channel])).toEqual([["approval", "webhook"]]);

    const id = await lifecycle.create(newJob, false);
    expect(await lifecycle.transition(id, "running")).toBe(true);
    expect(await listJobDeliveries(id)).toEqual([]);
    expect(await lifecycle.ended(id, { status: "failed", exitCode: 2, reason: null, at: new Date() })).toBe(true);
    // A second node's late end loses the move and enqueues nothing more.
    expect(await lifecycle.ended(id, { status: "failed", exitCode: 2, reason: null, at: new Date() })).toBe(false);
    const deliveries = await listJobDeliveries(id);
    expect(deliveries.map((d) => [d.event, d.channel, d.status, d.attempts])).toEqual([
      ["failed", "webhook", "pending", 0],
      ["failed", "email", "pending", 0],
    ]);
    // The query of the URL may hold a token: the log shows it elided.
    expect(deliveries[0]!.target).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook\?…$/);
  });

  it("two senders at once send each delivery once; a failed attempt is retried, an email without SMTP says so", async () => {
    answers = [500];
    const before = received.length;
    const [a, b] = await Promise.all([sender().pass(), sender().pass()]);
    expect(a + b).toBe(3);
    expect(received.length - before).toBe(2);
    const all = await getDb().notificationDelivery.findMany({ orderBy: { id: "asc" } });
    const email = all.find((d) => d.channel === "email")!;
    expect(email).toMatchObject({ status: "pending", attempts: 1, lastError: NO_SMTP });
    expect(
      all
        .filter((d) => d.channel === "webhook")
        .map((d) => [d.status, d.attempts, d.responseStatus])
        .sort(),
    ).toEqual([
      ["delivered", 1, 200],
      ["pending", 1, 500],
    ]);
    // The retry (backoff 0 s) delivers; the email fails for good after its last retry.
    await sender().pass(new Date(Date.now() + 1000));
    await sender().pass(new Date(Date.now() + 2000));
    const after = await getDb().notificationDelivery.findMany({ orderBy: { id: "asc" } });
    expect(after.filter((d) => d.channel === "webhook").map((d) => d.status)).toEqual(["delivered", "delivered"]);
    expect(after.find((d) => d.channel === "email")).toMatchObject({ status: "failed", attempts: 3, lastError: NO_SMTP });

    const failed = received.find((r) => JSON.parse(r.body).event === "failed")!;
    expect(failed.headers["x-playform-event"]).toBe("failed");
    expect(failed.headers["x-playform-signature"]).toBeUndefined();
    expect(JSON.parse(failed.body).job.url).toMatch(/^https:\/\/playform\.example\.com\/jobs\/\d+$/);
  });

  it("enqueues later what a node that died between a job's move and its enqueue left out, and only that", async () => {
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const bare = async (status: "failed" | "success" | "approval", at: Date) => {
      const id = await lifecycle.create(newJob, status === "approval");
      // The move as a node that died right after it left it: status and time, no deliveries.
      await getDb().job.update({ where: { id }, data: { status, finishedAt: status === "approval" ? null : at, createdAt: at } });
      await getDb().notificationDelivery.deleteMany({ where: { jobId: id } });
      return id;
    };
    const lost = await bare("failed", ago(5 * 60_000));
    const lostApproval = await bare("approval", ago(2 * 60_000));
    const tooRecent = await bare("failed", ago(CATCH_UP_GRACE_MS / 2));
    const tooOld = await bare("failed", ago(CATCH_UP_WINDOW_MS + 60_000));
    const notNotified = await bare("success", ago(5 * 60_000));
    // One of its two deliveries made it before the node died: the other is enqueued.
    const half = await bare("failed", ago(3 * 60_000));
    await getDb().notificationDelivery.create({
      data: { jobId: half, formName: "notified", event: "failed", channel: "email", target: "ops@example.com" },
    });

    expect(await enqueueMissedNotifications(now)).toBe(3);
    const events = async (id: number) => (await listJobDeliveries(id)).map((d) => `${d.event}:${d.channel}`).sort();
    expect(await events(lost)).toEqual(["failed:email", "failed:webhook"]);
    expect(await events(lostApproval)).toEqual(["approval:webhook"]);
    expect(await events(half)).toEqual(["failed:email", "failed:webhook"]);
    for (const id of [tooRecent, tooOld, notNotified]) expect(await events(id)).toEqual([]);
    // Nothing is left to catch up: a second look enqueues nothing.
    expect(await enqueueMissedNotifications(now)).toBe(0);
    await getDb().notificationDelivery.deleteMany({ where: { jobId: { in: [lost, lostApproval, half] } } });
  });

  it("does not follow a redirect, and keeps the URL's query out of an error", async () => {
    const redirecting = http.createServer((request, response) => {
      received.push({ headers: request.headers, body: request.url ?? "" });
      response.writeHead(302, { location: `${url.split("?")[0]}?followed=1` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    const port = (redirecting.address() as AddressInfo).port;
    const before = received.length;
    const body = notificationBody("success", job, null, "http://x");
    const outcome = await postWebhook(`http://127.0.0.1:${port}/hook?token=abc123`, body, 7, "s3cret-key");
    await new Promise((resolve) => redirecting.close(resolve));
    expect(outcome).toEqual({ delivered: false, responseStatus: 302, error: "HTTP 302: redirects are not followed" });
    expect(received.length - before).toBe(1);
    expect(received.at(-1)!.headers["x-playform-signature"]).toBe(signature(JSON.stringify(body), "s3cret-key"));
    const refused = await postWebhook(`http://127.0.0.1:${port}/hook?token=abc123`, body, 7, undefined);
    expect(refused.delivered).toBe(false);
    expect(refused.error).toMatch(/ECONNREFUSED/);
    expect(refused.error).not.toContain("abc123");
  });
});
