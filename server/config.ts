/**
 * The app's configuration, parsed once at boot with zod: a bad value stops the start with the
 * variable's name and what is wrong with it.
 */
import { hostname } from "node:os";
import path from "node:path";
import { z } from "zod";
import { databaseFilesDir, providerFromUrl } from "./data/database-url";
import { MIN_HEARTBEAT_TIMEOUT_SECONDS } from "./jobs/heartbeat";
import type { EncryptionSecretSource } from "./security/encryption-secret";
import { LOG_FORMATS, LOG_LEVELS } from "./logging/logger";
import { checkOidcEnv, oidcEnvShape } from "./auth/oidc-settings";
import { notifyEnvShape } from "./jobs/notify-settings";
import { retentionEnvShape } from "./retention/settings";
import { scheduleLimitsEnvShape } from "./schedules/limits";

const bool = z.enum(["1", "0", "true", "false", "yes", "no"]).transform((v) => ["1", "true", "yes"].includes(v));

const appEnvSchema = z
  .object({
    NODE_ENV: z.string().default("production"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default("0.0.0.0"),
    DATABASE_URL: z.string().default("file:./data/playform.db"),
    PLAYFORM_ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
    PLAYFORM_FORMS_DIR: z.string().default("server/forms/examples"),
    /** Start one RTE process next to the app (the start command's "local runtime environment"). */
    PLAYFORM_LOCAL_RTE: bool.default(true),
    PLAYFORM_LOCAL_RTE_NAME: z.string().default("local"),
    PLAYFORM_LOCAL_RTE_CAPACITY: z.coerce.number().int().positive().default(4),
    /** Health port of the local RTE; 0 picks a free one, so several apps can run on one host. */
    PLAYFORM_LOCAL_RTE_PORT: z.coerce.number().int().min(0).default(0),
    /**
     * What stopping the app (SIGTERM, SIGINT) does to the local RTE. `drain` (the default): it
     * stops with the app, letting running jobs finish for up to RTE_DRAIN_SECONDS and cancelling
     * the rest. `keep`: it keeps running with its jobs (in a process group of its own, so a
     * terminal's Ctrl-C does not reach it either), and the next start adopts it, as after a
     * kill -9 of the app: an app restart cancels nothing.
     */
    PLAYFORM_LOCAL_RTE_ON_STOP: z.enum(["drain", "keep"], { error: "must be drain or keep" }).default("drain"),
    PLAYFORM_NODE_ID: z.string().default(`${hostname()}-${process.pid}`),
    /**
     * Inbound runners with several app nodes: one node holds each link; when it stops renewing
     * its lease (it died) another takes the link over within this many seconds.
     */
    PLAYFORM_INBOUND_LEASE_SECONDS: z.coerce
      .number()
      .min(3, "must be at least 3 seconds")
      .max(600, "must be at most 600 seconds")
      .default(15),
    /**
     * Live followers: how often each socket's session and each follower's right to its job are
     * decided again, so a revoked session or a user taken out of a form's groups stops
     * receiving output within this time.
     */
    PLAYFORM_ACCESS_RECHECK_SECONDS: z.coerce
      .number()
      .min(1, "must be at least 1 second")
      .max(3600, "must be at most 3600 seconds")
      .default(15),
    RTE_QUEUE_MINUTES: z.coerce.number().positive().default(30),
    /**
     * Runners are asked for a heartbeat every timeout/4 seconds (at most every 15 s): below 4 s
     * that would be more than one a second, so such a setting is refused rather than honoured.
     */
    RTE_HEARTBEAT_TIMEOUT_SECONDS: z.coerce
      .number()
      .int()
      .min(
        MIN_HEARTBEAT_TIMEOUT_SECONDS,
        `must be at least ${MIN_HEARTBEAT_TIMEOUT_SECONDS} seconds: runners send a heartbeat every timeout/4 seconds, and faster than once a second is not supported`,
      )
      .default(120),
    /**
     * Encrypts stored credentials (server/security/credential-crypto.ts). Unset: generated once
     * into encryption.key next to the SQLite database. Trimmed, because a Secret mounted with a
     * trailing newline would otherwise derive another key on some nodes than on others.
     */
    ENCRYPTION_SECRET: z
      .string()
      .transform((s) => s.trim())
      .pipe(z.string().min(32, "must be at least 32 characters (e.g. openssl rand -base64 32)"))
      .optional(),
    /**
     * When set, GET /metrics needs `Authorization: Bearer <this>`; unset (or empty), /metrics is
     * open and belongs inside the cluster only. Trimmed like ENCRYPTION_SECRET (a mounted Secret's
     * trailing newline).
     */
    PLAYFORM_METRICS_TOKEN: z
      .string()
      .transform((s) => s.trim() || undefined)
      .pipe(z.string().min(16, "must be at least 16 characters (e.g. openssl rand -base64 24), or unset").optional())
      .optional(),
    /** trace, debug, info (default), warn, error, fatal: the least severe lines written (docs/operations.md, "Logs"). */
    LOG_LEVEL: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }))
      .default("info"),
    /** json or pretty; unset: pretty when stdout is a terminal, JSON lines otherwise. */
    LOG_FORMAT: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(LOG_FORMATS, { error: `must be one of ${LOG_FORMATS.join(", ")}, or unset` }))
      .optional(),
    /** Single sign-on (OpenID Connect) and PLAYFORM_LOCAL_LOGIN: server/auth/oidc-settings.ts. */
    ...oidcEnvShape,
    /** Notifications' SMTP server and retries: server/jobs/notify-settings.ts. */
    ...notifyEnvShape,
    /** Retention of job output and of the audit trail: server/retention/settings.ts. */
    ...retentionEnvShape,
    /** What a non-admin may schedule: server/schedules/limits.ts. */
    ...scheduleLimitsEnvShape,
  })
  .superRefine(checkOidcEnv);

export type AppConfig = z.infer<typeof appEnvSchema>;

export function loadAppConfig(env: Readonly<Record<string, string | undefined>> = process.env): AppConfig {
  const parsed = appEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n  ");
    throw new Error(`invalid configuration:\n  ${problems}`);
  }
  return parsed.data;
}

/**
 * Where the credential encryption key comes from: ENCRYPTION_SECRET, else `encryption.key`
 * beside the SQLite database (data/encryption.key with PostgreSQL, where several app nodes may
 * share the database and so must share the secret).
 */
export function encryptionSecretSource(config: Pick<AppConfig, "ENCRYPTION_SECRET" | "DATABASE_URL">): EncryptionSecretSource {
  return {
    ENCRYPTION_SECRET: config.ENCRYPTION_SECRET,
    keyFile: path.join(databaseFilesDir(config.DATABASE_URL), "encryption.key"),
    multiNode: providerFromUrl(config.DATABASE_URL) === "postgresql",
  };
}
