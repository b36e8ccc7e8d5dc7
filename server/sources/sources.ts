/**
 * Git sources of forms (admins, through /api/sources): register, change, delete, list, and the
 * push webhook. The webhook's shared secret is generated here when asked for, answered once
 * and stored only encrypted (as credentials are, server/security/credential-crypto.ts).
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { DomainError } from "../errors";
import { audited } from "../audit/record";
import { credentialNameSchema } from "../credentials/kinds";
import { gitSourceSecret } from "../credentials/resolve";
import {
  SourceExistsError,
  deleteSourceRow,
  deleteUnusedSourceForms,
  findSourceRow,
  insertSource,
  listSourceForms,
  listSourceRows,
  sourceCacheDir,
  updateSource,
  type SourceRow,
} from "../data/sources";
import { decryptCredential, encryptCredential } from "../security/credential-crypto";
import { credentialKey } from "../security/encryption-secret";
import { webhookSignatureValid } from "../security/webhook-signature";
import { loggerFor } from "../logging/logger";
import { SYNC_LEASE_STALE_MS, removeOldCheckouts, syncInBackground } from "./sync";

const log = loggerFor({ component: "sources" });

/** Names appear in URLs (/api/sources/NAME) and name the source's folder of the cache. */
export const sourceNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/, "must be lowercase letters, digits, '-', '_' or '.', starting with a letter or digit (at most 63)");

/**
 * https://, http://, ssh://, scp-like `user@host:path`, file:// or an absolute local path. Never
 * an option (a leading '-', nor a user or host starting with one: `ssh://-oProxyCommand=…` would
 * reach ssh as an option), never a password or token in the URL: those go in a credential.
 * http:// only without a credential (checkCredential): a token would travel in clear.
 */
const urlSchema = z
  .string()
  .trim()
  .min(1, "is required")
  .max(2000)
  .superRefine((url, ctx) => {
    const scheme = /^(https?|ssh|file):\/\/([^/]*)/.exec(url);
    const scpLike = /^([^@\s/:]+)@([^:\s/]+):(.*)$/.exec(url);
    if (scheme) {
      if (/^https?:\/\/[^/]*@/.test(url)) {
        ctx.addIssue({
          code: "custom",
          message: "must not hold a user or token: store an https token as a credential of kind secret and name it in credential",
        });
      }
      const authority = scheme[2]!;
      const user = authority.includes("@") ? authority.slice(0, authority.lastIndexOf("@")) : "";
      const host = authority.slice(authority.lastIndexOf("@") + 1);
      if (host.startsWith("-") || user.startsWith("-"))
        ctx.addIssue({ code: "custom", message: "must not have a user or host starting with '-' (git would pass it to ssh as an option)" });
    } else if (scpLike && (scpLike[1]!.startsWith("-") || scpLike[2]!.startsWith("-"))) {
      ctx.addIssue({ code: "custom", message: "must not have a user or host starting with '-' (git would pass it to ssh as an option)" });
    } else if (scpLike && /^[A-Za-z0-9._-]+$/.test(scpLike[1]!) && /^[A-Za-z0-9.-]+$/.test(scpLike[2]!) && /^[^/]/.test(scpLike[3]!)) {
      // user@host:path
    } else if (!url.startsWith("/")) {
      ctx.addIssue({ code: "custom", message: "must be an https://, http://, ssh://, file:// URL, user@host:path or an absolute path" });
    }
    if (/\s/.test(url)) ctx.addIssue({ code: "custom", message: "must not contain spaces" });
  });

const refSchema = z
  .string()
  .trim()
  .max(255)
  .regex(
    /^(?!-)(?!.*\.\.)[A-Za-z0-9._/+-]+$/,
    "must be a branch or tag name (letters, digits, '.', '_', '/', '+', '-'; not starting with '-')",
  );

const formsPathSchema = z
  .string()
  .trim()
  .max(500)
  .transform((p) => p.replace(/^\.\/+/, "").replace(/\/+$/, ""))
  .refine((p) => !p.startsWith("/") && !p.split("/").includes(".."), "must be a folder inside the repository (no leading '/', no '..')");

const intervalSchema = z.number().int().min(1, "must be at least 1 minute").max(10_080, "must be at most a week (10080 minutes)");

export const createSourceSchema = z
  .object({
    name: sourceNameSchema,
    url: urlSchema,
    ref: refSchema.nullish(),
    credential: credentialNameSchema.nullish(),
    formsPath: formsPathSchema.default(""),
    syncIntervalMinutes: intervalSchema.nullish(),
    /** true: generate a webhook secret, answered once. */
    webhook: z.boolean().optional(),
  })
  .strict();

export const updateSourceSchema = z
  .object({
    url: urlSchema.optional(),
    ref: refSchema.nullish(),
    credential: credentialNameSchema.nullish(),
    formsPath: formsPathSchema.optional(),
    syncIntervalMinutes: intervalSchema.nullish(),
    /** true: a new webhook secret (the old one stops working), answered once; false: no webhook. */
    webhook: z.boolean().optional(),
  })
  .strict();

export interface SourceView {
  name: string;
  url: string;
  ref: string | null;
  credential: string | null;
  formsPath: string;
  syncIntervalMinutes: number | null;
  /** Whether a webhook secret is set (the secret itself is answered once, when generated). */
  webhook: boolean;
  /** The last commit synced successfully. */
  commit: string | null;
  /** When the last sync ended, whatever its outcome. */
  syncedAt: string | null;
  syncStatus: "ok" | "failed" | "running" | null;
  syncError: string | null;
  /** Forms refused at the last sync, one message each. */
  syncErrors: string[];
  /** The forms imported from the source and the commit each is at. */
  forms: { name: string; commit: string | null }[];
  createdAt: string;
  updatedAt: string;
}

async function toView(row: SourceRow): Promise<SourceView> {
  const running = row.syncStatus === "running" && Date.now() - row.updatedAt.getTime() < SYNC_LEASE_STALE_MS;
  return {
    name: row.name,
    url: row.url,
    ref: row.ref,
    credential: row.credential,
    formsPath: row.formsPath,
    syncIntervalMinutes: row.syncIntervalMinutes,
    webhook: row.webhookSecret !== null,
    commit: row.commit,
    syncedAt: row.syncedAt?.toISOString() ?? null,
    // A lease whose node died is not a sync running.
    syncStatus: row.syncStatus === "running" && !running ? "failed" : (row.syncStatus as SourceView["syncStatus"]),
    syncError: row.syncStatus === "running" && !running ? "the sync was interrupted (its app node stopped)" : row.syncError,
    syncErrors: Array.isArray(row.syncErrors) ? row.syncErrors.filter((e): e is string => typeof e === "string") : [],
    forms: (await listSourceForms(row.name)).map((f) => ({ name: f.name, commit: f.sourceCommit })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listSourceViews(): Promise<SourceView[]> {
  return Promise.all((await listSourceRows()).map(toView));
}

async function requireSource(name: string): Promise<SourceRow> {
  const row = await findSourceRow(name);
  if (!row) throw new DomainError("not_found", `no source named "${name}"`);
  return row;
}

export async function getSourceView(name: string): Promise<SourceView> {
  return toView(await requireSource(name));
}

/**
 * A credential a source may use: it exists, and is an ssh key or an https token; a token goes
 * to an https:// URL only, and no credential goes with an http:// one (it would travel in clear).
 */
async function checkCredential(name: string | null | undefined, url: string): Promise<void> {
  if (!name) return;
  if (url.startsWith("http://")) {
    const message = "must be https:// when the source has a credential: over http:// its token would be sent in clear";
    throw new DomainError("validation_failed", `url: ${message}`, { url: message });
  }
  const secret = await gitSourceSecret(name);
  if (!secret.ok) throw new DomainError("validation_failed", `credential: ${secret.message}`, { credential: secret.message });
  if (secret.kind === "token" && !url.startsWith("https://")) {
    const message = `"${name}" is an https token, sent to an https:// url only; this source's url is not one (use an ssh key for ssh)`;
    throw new DomainError("validation_failed", `credential: ${message}`, { credential: message });
  }
}

function newWebhookSecret(id: string): { secret: string; encrypted: string } {
  const secret = randomBytes(24).toString("base64url");
  return { secret, encrypted: encryptCredential(credentialKey(), id, secret) };
}

/** Recorded in the audit trail; answers the webhook secret once when one was asked for. */
export async function createSource(
  input: z.infer<typeof createSourceSchema>,
  actor: string,
): Promise<{ source: SourceView; webhookSecret?: string }> {
  const audit = {
    actor,
    action: "source.create",
    target: `source:${input.name}`,
    details: { url: input.url, ref: input.ref ?? null },
  } as const;
  return audited(audit, async () => {
    await checkCredential(input.credential, input.url);
    const id = randomUUID();
    const webhook = input.webhook ? newWebhookSecret(id) : null;
    try {
      const row = await insertSource({
        id,
        name: input.name,
        url: input.url,
        ref: input.ref || null,
        credential: input.credential ?? null,
        formsPath: input.formsPath,
        syncIntervalMinutes: input.syncIntervalMinutes ?? null,
        webhookSecret: webhook?.encrypted ?? null,
      });
      return { source: await toView(row), ...(webhook ? { webhookSecret: webhook.secret } : {}) };
    } catch (error) {
      if (error instanceof SourceExistsError) throw new DomainError("conflict", error.message);
      throw error;
    }
  });
}

/** Changes take effect at the next sync (the forms stay at their commit until then). */
export async function changeSource(
  name: string,
  input: z.infer<typeof updateSourceSchema>,
  actor: string,
): Promise<{ source: SourceView; webhookSecret?: string }> {
  const audit = { actor, action: "source.update", target: `source:${name}`, details: { fields: Object.keys(input) } } as const;
  return audited(audit, async () => {
    const row = await requireSource(name);
    // The source as it will be: a new url is checked against the kept credential, and back.
    if (input.url !== undefined || input.credential !== undefined)
      await checkCredential(input.credential === undefined ? row.credential : input.credential, input.url ?? row.url);
    const webhook = input.webhook ? newWebhookSecret(row.id) : null;
    const updated = await updateSource(name, {
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.ref !== undefined ? { ref: input.ref || null } : {}),
      ...(input.credential !== undefined ? { credential: input.credential } : {}),
      ...(input.formsPath !== undefined ? { formsPath: input.formsPath } : {}),
      ...(input.syncIntervalMinutes !== undefined ? { syncIntervalMinutes: input.syncIntervalMinutes } : {}),
      ...(input.webhook === false ? { webhookSecret: null } : webhook ? { webhookSecret: webhook.encrypted } : {}),
    });
    if (!updated) throw new DomainError("not_found", `no source named "${name}"`);
    return { source: await toView(updated), ...(webhook ? { webhookSecret: webhook.secret } : {}) };
  });
}

/**
 * Deletes the source and the forms of it no job ran; forms with jobs stay (a job's history
 * keeps its form), at their last commit, whose checkout stays on disk. 409 while it syncs.
 */
export async function deleteSource(name: string, actor: string): Promise<{ removedForms: string[]; keptForms: string[] }> {
  const audit = { actor, action: "source.delete", target: `source:${name}` } as const;
  return audited({ ...audit, detailsOf: (r) => ({ removedForms: r.removedForms, keptForms: r.keptForms }) }, async () => {
    const view = await getSourceView(name);
    if (view.syncStatus === "running") throw new DomainError("conflict", `source "${name}" is syncing: delete it after the sync ends`);
    const removedForms = await deleteUnusedSourceForms(name);
    await deleteSourceRow(name);
    const cache = path.join(sourceCacheDir(), name);
    fs.rmSync(path.join(cache, "repo.git"), { recursive: true, force: true });
    if (fs.existsSync(cache)) await removeOldCheckouts(name, []);
    const keptForms = (await listSourceForms(name)).map((f) => f.name);
    return { removedForms, keptForms };
  });
}

/**
 * A push webhook: the request must prove it knows the source's secret (GitHub, Gitea or GitLab
 * style, server/security/webhook-signature.ts), else 401, the same answer for a source that
 * does not exist or has no webhook. The sync then runs in the background.
 */
export async function receiveWebhook(name: string, header: (name: string) => string | null, body: Uint8Array): Promise<void> {
  const refused = new DomainError("unauthorized", "the webhook's signature or token does not match the source's secret");
  const row = await findSourceRow(name);
  if (!row?.webhookSecret) throw refused;
  let secret: string;
  try {
    secret = decryptCredential(credentialKey(), row.id, row.webhookSecret);
  } catch (error) {
    log().error({ err: error }, `source ${name}: the webhook secret cannot be opened (was ENCRYPTION_SECRET changed?)`);
    throw refused;
  }
  if (!webhookSignatureValid(header, body, secret)) throw refused;
  void syncInBackground(name, "webhook").catch((error: unknown) => log().error({ err: error }, `source ${name}: webhook sync failed`));
}
