/**
 * The real logger (server/logging) writing to memory: the masking fixtures' secrets, in every
 * encoding Python prints them, logged as messages, as fields, inside errors and under the
 * known secret keys, never reach a line; lines are JSON with the context fields; LOG_LEVEL and
 * LOG_FORMAT are checked.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createLogger,
  initLogging,
  logSettings,
  maskInLogs,
  routeConsoleToLogs,
  withLogContext,
  type Logger,
} from "../../server/logging/logger";
import { MASK } from "../../server/security/mask";

interface EncodingCase {
  secret: string;
  form: string;
  text: string;
}

const fixture = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../fixtures/mask/encodings.json"), "utf8")) as {
  before: string;
  after: string;
  cases: EncodingCase[];
};
const SECRETS = [...new Set(fixture.cases.map((c) => c.secret))];

function memoryLogger(options: Parameters<typeof createLogger>[0] = {}): { log: Logger; lines: () => string[] } {
  const written: string[] = [];
  const log = createLogger({ level: "trace", format: "json", ...options, destination: { write: (line: string) => written.push(line) } });
  return { log, lines: () => written.join("").split("\n").filter(Boolean) };
}

/** Every string in a parsed line, keys included. */
function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, into);
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      into.push(k);
      strings(v, into);
    }
  return into;
}

/** The forms a leaked secret could take in a line: raw, JSON-escaped, base64, URL-encoded. */
function leakedForms(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString("base64").replace(/=+$/, ""),
    encodeURIComponent(secret),
  ].filter((form) => form.length >= 4);
}

const releases: (() => void)[] = [];
afterEach(() => {
  for (const release of releases.splice(0)) release();
});

describe("the logger never writes a secret it knows", () => {
  it.each(fixture.cases.map((c) => [JSON.stringify(c.secret), c.form, c] as const))("%s printed as %s", (_secret, _form, c) => {
    releases.push(maskInLogs([c.secret]));
    const { log, lines } = memoryLogger();
    log.info(c.text);
    log.warn({ output: c.text, nested: { deeper: [c.text] } }, "a field holds it");
    log.error({ err: new Error(`failed: ${c.text}`) }, "an error quotes it");
    log.child({ note: c.text }).info("a child's binding holds it");
    const written = lines();
    expect(written).toHaveLength(4);
    // The printed form between the sentinels becomes the mask: what is around it stays.
    const start = c.text.indexOf(fixture.before) + fixture.before.length;
    const masked = c.text.slice(0, start) + MASK + c.text.slice(c.text.indexOf(fixture.after));
    const parsed = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed[0]!.msg).toBe(masked);
    for (const line of parsed) {
      for (const text of strings(line)) {
        for (const form of leakedForms(c.secret)) expect(text).not.toContain(form);
        const printed = c.text.slice(start, c.text.indexOf(fixture.after));
        expect(text).not.toContain(printed);
      }
    }
  });

  it("redacts the values of secret keys, known or not, at any of the first three levels", () => {
    const { log, lines } = memoryLogger();
    const secret = "never-registered-s3cret";
    log.info(
      {
        password: secret,
        token: secret,
        authorization: `Bearer ${secret}`,
        headers: { authorization: `Basic ${secret}`, cookie: `playform_session=${secret}` },
        body: { username: "admin", password: secret, api_key: secret },
        job: { extravars: { db_password: secret }, secrets: { vault: secret } },
      },
      "request",
    );
    const [line] = lines();
    expect(line).not.toContain(secret);
    const parsed = JSON.parse(line!) as { headers: { authorization: string }; body: { username: string; password: string } };
    expect(parsed.headers.authorization).toBe(MASK);
    expect(parsed.body).toEqual({ username: "admin", password: MASK, api_key: MASK });
  });

  it("masks every fixture secret at once, and stops masking one once it is released", () => {
    const release = maskInLogs(SECRETS);
    const { log, lines } = memoryLogger();
    for (const secret of SECRETS) log.info(`value ${secret} end`);
    release();
    log.info("after release: it's-a-secret");
    const written = lines();
    for (const line of written.slice(0, -1)) for (const secret of SECRETS) expect(JSON.parse(line).msg).not.toContain(secret);
    expect(JSON.parse(written.at(-1)!).msg).toBe("after release: it's-a-secret");
  });

  it("keeps a value masked while anyone still holds it", () => {
    const first = maskInLogs(["shared-secret-value"]);
    const second = maskInLogs(["shared-secret-value"]);
    const { log, lines } = memoryLogger();
    first();
    log.info("shared-secret-value");
    second();
    log.info("shared-secret-value");
    expect(lines().map((l) => JSON.parse(l).msg)).toEqual([MASK, "shared-secret-value"]);
  });

  it("masks in pretty output too", () => {
    releases.push(maskInLogs(['pa"ss\\word']));
    const { log, lines } = memoryLogger({ format: "pretty", colorize: false });
    log.info({ jobId: 3 }, 'value pa"ss\\word');
    const text = lines().join("\n");
    expect(text).toContain(`value ${MASK}`);
    expect(text).toContain("jobId: 3");
    expect(text).not.toContain("pa");
  });
});

describe("log lines", () => {
  it("are JSON objects with level, time, the base fields, the context and the message", () => {
    const { log, lines } = memoryLogger({ base: { source: "app" } });
    withLogContext({ reqId: "req-1" }, () => log.child({ jobId: 7, runner: "local", instance: "local-0" }).info("job 7: claimed"));
    log.info("outside a request");
    const [inside, outside] = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inside).toMatchObject({
      level: "info",
      source: "app",
      reqId: "req-1",
      jobId: 7,
      runner: "local",
      instance: "local-0",
      msg: "job 7: claimed",
    });
    expect(typeof inside!.time).toBe("string");
    expect(outside!.reqId).toBeUndefined();
  });

  it("follow the level", () => {
    const { log, lines } = memoryLogger({ level: "warn" });
    log.info("not written");
    log.debug("not written");
    log.warn("written");
    expect(lines().map((l) => JSON.parse(l).msg)).toEqual(["written"]);
  });
});

describe("logSettings", () => {
  it("defaults to info, pretty on a terminal and JSON elsewhere", () => {
    expect(logSettings({}, false)).toEqual({ level: "info", format: "json" });
    expect(logSettings({}, true)).toEqual({ level: "info", format: "pretty" });
    expect(logSettings({ LOG_LEVEL: "DEBUG", LOG_FORMAT: "json" }, true)).toEqual({ level: "debug", format: "json" });
  });

  it("refuses a bad value, naming the variable and the values allowed", () => {
    expect(() => logSettings({ LOG_LEVEL: "verbose" }, false)).toThrow(/LOG_LEVEL: must be one of trace, debug, info, warn, error, fatal/);
    expect(() => logSettings({ LOG_FORMAT: "xml" }, false)).toThrow(/LOG_FORMAT: must be one of json, pretty/);
  });
});

describe("routeConsoleToLogs", () => {
  it("turns what a library prints through console into JSON lines: colour stripped, level kept, secrets masked, blank lines dropped", () => {
    const written: string[] = [];
    initLogging({ level: "debug", format: "json", base: { source: "app" }, destination: { write: (line: string) => written.push(line) } });
    const unmask = maskInLogs(["console-secret-4711"]);
    const fake = { log() {}, info() {}, debug() {}, trace() {}, warn() {}, error() {} } as unknown as Console;
    try {
      routeConsoleToLogs(fake);
      fake.log("\u001b[32m\u001b[1m✓\u001b[22m\u001b[39m Running next.config.js took %dms", 16);
      fake.log("");
      fake.warn("⚠ token console-secret-4711 in a warning");
      fake.error("a route failed:", new Error("boom"));
    } finally {
      unmask();
      initLogging({});
    }
    const lines = written
      .join("")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: string; msg: string; component: string; err?: { message: string } });
    expect(lines.map((l) => [l.level, l.component, l.msg.split(":")[0]])).toEqual([
      ["info", "console", "✓ Running next.config.js took 16ms"],
      ["warn", "console", `⚠ token ${MASK} in a warning`],
      ["error", "console", "a route failed"],
    ]);
    expect(lines[2]!.err?.message).toBe("boom");
  });
});
