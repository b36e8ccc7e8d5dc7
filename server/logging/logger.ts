/**
 * Structured logs of the app and of the RTE: one JSON object per line (pino), or pino-pretty's
 * text when stdout is a terminal (LOG_FORMAT forces either). A shared leaf: it imports only the
 * masker of server/security, so the app's layers and the RTE may all use it.
 *
 * No secret is ever written:
 * - pino `redact` replaces the values of known keys (password, token, authorization, cookie,
 *   secret, api_key, extravars, …) whatever they hold;
 * - every finished line (message, fields, error stacks) goes through the masker of
 *   server/security/mask.ts, built from the secret values this process knows (its own
 *   configuration's secrets, the runner token, the password values of the jobs it holds in
 *   clear): the same masking job output gets, so an escaped or encoded copy is caught too.
 *
 * Context: child loggers carry `jobId`, `runner`, `instance`; a request's `reqId` comes from
 * AsyncLocalStorage (withLogContext), so anything logged while serving a request carries it.
 *
 * State lives on globalThis: Next compiles route handlers into a bundle of their own, and both
 * copies of this module must share one logger, one secret list and one request context.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { format as formatArgs } from "node:util";
import { pino, type ChildLoggerOptions, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { prettyFactory } from "pino-pretty";
import { MASK, createMasker, type Masker } from "../security/mask";

export type { Logger } from "pino";

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** What a log line may carry besides its message (a request's reqId comes from the context). */
export interface LogContext {
  reqId?: string;
  jobId?: number;
  runner?: string;
  instance?: string;
}

/**
 * Keys whose values are never written, at the top level and one or two levels down (pino's
 * redaction matches paths, not names anywhere).
 */
const SECRET_KEYS = [
  "password",
  "passwords",
  "newPassword",
  "currentPassword",
  "token",
  "accessToken",
  "refreshToken",
  "authorization",
  "Authorization",
  "cookie",
  "Cookie",
  "set-cookie",
  "secret",
  "secrets",
  "api_key",
  "apiKey",
  "extravars",
  "privateKey",
  "private_key",
  "vault_password",
  "ENCRYPTION_SECRET",
  "PLAYFORM_ADMIN_PASSWORD",
  "PLAYFORM_METRICS_TOKEN",
  "RTE_TOKEN",
  "RTE_METRICS_TOKEN",
  "DATABASE_URL",
];

export const REDACTED_PATHS: string[] = SECRET_KEYS.flatMap((key) => {
  const k = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const dot = k.startsWith("[") ? "" : ".";
  return [k, `*${dot}${k}`, `*.*${dot}${k}`];
});

export interface LogSettings {
  level: LogLevel;
  format: LogFormat;
}

/**
 * LOG_LEVEL (default info) and LOG_FORMAT (default: pretty when stdout is a terminal, else
 * json). A bad value is an error naming the variable and the values allowed.
 */
export function logSettings(env: Readonly<Record<string, string | undefined>>, isTty = Boolean(process.stdout.isTTY)): LogSettings {
  const problems: string[] = [];
  const level = (env.LOG_LEVEL?.trim() || "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    problems.push(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(", ")} (got ${JSON.stringify(env.LOG_LEVEL)})`);
  const format = (env.LOG_FORMAT?.trim() || (isTty ? "pretty" : "json")).toLowerCase();
  if (!(LOG_FORMATS as readonly string[]).includes(format))
    problems.push(`LOG_FORMAT: must be one of ${LOG_FORMATS.join(", ")}, or unset (got ${JSON.stringify(env.LOG_FORMAT)})`);
  if (problems.length > 0) throw new Error(`invalid configuration:\n  ${problems.join("\n  ")}`);
  return { level: level as LogLevel, format: format as LogFormat };
}

interface LoggingState {
  root: Logger | null;
  context: AsyncLocalStorage<LogContext>;
  /** Secret values known to this process, counted (a job's values may be held twice). */
  secrets: Map<string, number>;
  masker: Masker;
}

const KEY = Symbol.for("playform.logging");

function state(): LoggingState {
  const holder = globalThis as typeof globalThis & { [KEY]?: LoggingState };
  holder[KEY] ??= { root: null, context: new AsyncLocalStorage(), secrets: new Map(), masker: (text) => text };
  return holder[KEY];
}

/**
 * Makes the logger mask these values (and their escaped and encoded forms) wherever they
 * appear in a line, until the returned function is called.
 */
export function maskInLogs(values: Iterable<string | null | undefined>): () => void {
  const s = state();
  const added = [...new Set([...values].filter((v): v is string => typeof v === "string" && v.length > 0))];
  for (const value of added) s.secrets.set(value, (s.secrets.get(value) ?? 0) + 1);
  s.masker = createMasker([...s.secrets.keys()]);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const value of added) {
      const count = (s.secrets.get(value) ?? 1) - 1;
      if (count > 0) s.secrets.set(value, count);
      else s.secrets.delete(value);
    }
    s.masker = createMasker([...s.secrets.keys()]);
  };
}

const SECRET_KEY_NAMES = new Set(SECRET_KEYS.map((key) => key.toLowerCase()));

/**
 * A value to be stored outside the logs (the audit trail's details) masked as a log line would
 * be: the values of secret keys (SECRET_KEYS, at any depth, any case) replaced by MASK, and
 * every string masked for the secret values this process knows (maskInLogs).
 */
export function maskSecrets(value: unknown): unknown {
  const s = state();
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return s.masker(v);
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map(walk);
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(v)) out[s.masker(key)] = SECRET_KEY_NAMES.has(key.toLowerCase()) ? MASK : walk(inner);
    return out;
  };
  return walk(value);
}

/** Runs `fn` with this context added to every line logged under it (a request's reqId). */
export function withLogContext<T>(context: LogContext, fn: () => T): T {
  const s = state();
  return s.context.run({ ...s.context.getStore(), ...context }, fn);
}

export function currentLogContext(): LogContext | undefined {
  return state().context.getStore();
}

export interface CreateLoggerOptions extends Partial<LogSettings> {
  /** Fields on every line: `source` ("app" or "rte"), the node or instance. */
  base?: Record<string, unknown>;
  /** Where the lines go: stdout unless said otherwise (tests pass a memory stream). */
  destination?: { write(line: string): unknown };
  /** Colours in pretty mode: when stdout is a terminal unless said otherwise. */
  colorize?: boolean;
}

/**
 * Every string of a value masked (keys included), before pino serializes it: a value escaped
 * once more by the JSON line would otherwise be one level deeper than the masker looks.
 * Errors are left to the `err` serializer, which masks what it makes of them.
 */
function maskValue(value: unknown, mask: Masker): unknown {
  if (typeof value === "string") return mask(value);
  if (value instanceof Error || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => maskValue(v, mask));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[mask(key)] = maskValue(v, mask);
  return out;
}

/** A logger writing masked lines to the destination (stdout by default). */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const level = options.level ?? "info";
  const format = options.format ?? "json";
  const out = options.destination ?? { write: (line: string) => process.stdout.write(line) };
  const pretty =
    format === "pretty"
      ? prettyFactory({
          colorize: options.colorize ?? Boolean(process.stdout.isTTY),
          translateTime: "SYS:yyyy-mm-dd HH:MM:ss.l",
          ignore: "pid,hostname",
          singleLine: false,
        })
      : null;
  const s = state();
  const destination: DestinationStream = {
    write(line: string) {
      const masked = s.masker(line);
      out.write(pretty ? pretty(masked) : masked);
    },
  };
  const loggerOptions: LoggerOptions = {
    level,
    base: { pid: process.pid, ...options.base },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: MASK },
    // Masked values, then masked lines (server/security/mask.ts): see the top of this file.
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => maskValue(arg, s.masker)) as Parameters<typeof method>);
      },
    },
    serializers: { err: (error: Error) => maskValue({ ...pino.stdSerializers.err(error) }, s.masker) },
    formatters: {
      level: (label) => ({ level: label }),
      bindings: (bindings) => maskValue(bindings, s.masker) as Record<string, unknown>,
    },
    mixin: () => ({ ...s.context.getStore() }),
  };
  return maskedChildren(pino(loggerOptions, destination), s);
}

/** Child loggers whose bindings (serialized once, at creation) are masked like any value. */
function maskedChildren(log: Logger, s: LoggingState): Logger {
  const child = log.child.bind(log);
  log.child = ((bindings: Record<string, unknown>, options?: ChildLoggerOptions) =>
    maskedChildren(child(maskValue(bindings, s.masker) as Record<string, unknown>, options), s)) as unknown as Logger["child"];
  return log;
}

/** LOG_LEVEL and LOG_FORMAT from the environment, or the defaults when either is wrong. */
export function logSettingsOrDefaults(env: Readonly<Record<string, string | undefined>>): LogSettings {
  try {
    return logSettings(env);
  } catch {
    return logSettings({});
  }
}

/**
 * Sets this process's logger (the custom server and the RTE call it once at start, after
 * reading LOG_LEVEL and LOG_FORMAT).
 */
export function initLogging(options: CreateLoggerOptions): Logger {
  const logger = createLogger(options);
  state().root = logger;
  return logger;
}

/**
 * This process's logger, or a child of it for a component (`{ component: "dispatcher" }`) or
 * a job (`{ jobId }`). Before initLogging (a unit test, a script), one from the environment,
 * or from the defaults when the environment's values are wrong.
 */
export function logger(bindings?: Record<string, unknown>): Logger {
  const s = state();
  s.root ??= createLogger(logSettingsOrDefaults(process.env));
  return bindings ? s.root.child(bindings) : s.root;
}

/**
 * A module's logger, for a module-level constant: `const log = loggerFor({ component: "x" })`,
 * then `log().info(…)`. Resolved at each use, so lines logged after initLogging follow its
 * level and format even though the module was loaded before it ran.
 */
export function loggerFor(bindings: Record<string, unknown>): () => Logger {
  let cached: { root: Logger; child: Logger } | null = null;
  return () => {
    const root = logger();
    if (cached?.root !== root) cached = { root, child: root.child(bindings) };
    return cached.child;
  };
}

const CONSOLE_LEVELS = { log: "info", info: "info", debug: "debug", trace: "debug", warn: "warn", error: "error" } as const;
// eslint-disable-next-line no-control-regex -- the colour codes Next.js writes
const ANSI_SGR = /\u001b\[[0-9;]*m/g;

/**
 * With JSON logs, what libraries print through `console` (Next.js: "✓ Running next.config.js",
 * its own warnings and route errors) becomes a log line of this process's logger too, with
 * `component: "console"`, its colour codes stripped and its secrets masked like any line, so
 * stdout stays one JSON object per line for a log shipper. Blank lines are dropped.
 */
export function routeConsoleToLogs(target: Console = console): void {
  const log = loggerFor({ component: "console" });
  for (const [method, level] of Object.entries(CONSOLE_LEVELS) as [keyof typeof CONSOLE_LEVELS, LogLevel][]) {
    target[method] = (...args: unknown[]) => {
      const text = formatArgs(...args)
        .replace(ANSI_SGR, "")
        .trim();
      if (!text) return;
      const err = args.find((arg): arg is Error => arg instanceof Error);
      if (err) log()[level]({ err }, text);
      else log()[level](text);
    };
  }
}
