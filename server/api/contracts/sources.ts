/** Contracts of Git sources of forms (admins) and their push webhook (server/api/contract.ts). */
import { z } from "zod";
import { createSourceSchema, updateSourceSchema } from "../../sources/sources";
import { endpoint } from "../contract";

const sourceSchema = z
  .object({
    name: z.string(),
    url: z.string(),
    ref: z.string().nullable().meta({ description: "branch or tag; null: the remote's default branch" }),
    credential: z.string().nullable(),
    formsPath: z.string(),
    syncIntervalMinutes: z.number().int().nullable(),
    webhook: z.boolean().meta({ description: "whether a webhook secret is set (the secret is answered once, when generated)" }),
    commit: z.string().nullable().meta({ description: "the last commit synced successfully" }),
    syncedAt: z.string().nullable(),
    syncStatus: z.enum(["ok", "failed", "running"]).nullable(),
    syncError: z.string().nullable(),
    syncErrors: z.array(z.string()).meta({ description: "forms refused at the last sync, one message each" }),
    forms: z.array(z.object({ name: z.string(), commit: z.string().nullable() })),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Source" });

const sourceAnswer = z.object({
  source: sourceSchema,
  webhookSecret: z.string().optional().meta({ description: "only when `webhook: true` was sent: shown this once" }),
});

const syncResultSchema = z
  .object({
    status: z.enum(["ok", "failed"]),
    commit: z.string().nullable().meta({ description: "the new commit, or the last good one when the sync failed" }),
    imported: z.array(z.string()),
    errors: z.array(z.string()),
    error: z.string().nullable(),
  })
  .meta({ id: "SourceSync" });

const nameParams = z.object({ name: z.string() });

export const listSources = endpoint({
  method: "get",
  path: "/api/sources",
  summary: "Every Git source of forms, with its sync status",
  tags: ["sources"],
  access: "admin",
  responses: { 200: { description: "the sources", schema: z.object({ sources: z.array(sourceSchema) }) } },
});

export const createSource = endpoint({
  method: "post",
  path: "/api/sources",
  summary: "Register a Git repository of forms: `{name, url, ref?, credential?, formsPath?, syncIntervalMinutes?, webhook?}`",
  tags: ["sources"],
  access: "admin",
  body: { schema: createSourceSchema },
  responses: { 201: { description: "registered (not synced yet)", schema: sourceAnswer } },
  errors: { 409: "the name is taken" },
});

export const getSource = endpoint({
  method: "get",
  path: "/api/sources/[name]",
  summary: "One source",
  tags: ["sources"],
  access: "admin",
  params: nameParams,
  responses: { 200: { description: "the source", schema: z.object({ source: sourceSchema }) } },
});

export const updateSource = endpoint({
  method: "patch",
  path: "/api/sources/[name]",
  summary: "Change a source (taken into account at its next sync); `webhook: true` answers a new secret once",
  tags: ["sources"],
  access: "admin",
  params: nameParams,
  body: { schema: updateSourceSchema },
  responses: { 200: { description: "changed", schema: sourceAnswer } },
});

export const deleteSource = endpoint({
  method: "delete",
  path: "/api/sources/[name]",
  summary: "Delete a source and its forms no job ran (forms with jobs stay, at their last commit)",
  tags: ["sources"],
  access: "admin",
  params: nameParams,
  responses: { 204: { description: "deleted" } },
  errors: { 409: "the source is syncing" },
});

export const syncSource = endpoint({
  method: "post",
  path: "/api/sources/[name]/sync",
  summary: "Sync now: fetch, check out and import; answers once the sync ended (a failed sync is `status: failed`)",
  tags: ["sources"],
  access: "admin",
  params: nameParams,
  responses: { 200: { description: "the sync's outcome", schema: syncResultSchema } },
  errors: { 409: "another sync of the source is running" },
});

export const sourceWebhook = endpoint({
  method: "post",
  path: "/api/sources/[name]/webhook",
  summary: "A forge's push webhook: signed with the source's secret (GitHub, Gitea or GitLab style); syncs in the background",
  description:
    "No session: `X-Hub-Signature-256: sha256=HMAC` (GitHub), `X-Gitea-Signature: HMAC` (hex HMAC-SHA256 of the body) or " +
    "`X-Gitlab-Token: SECRET`. Answers 202 at once; the sync runs after (a sync already running: after its end).",
  tags: ["sources"],
  access: "public",
  params: nameParams,
  body: { schema: z.unknown(), optional: true, description: "the forge's push event, any content (only its signature is checked)" },
  responses: { 202: { description: "accepted: the sync runs in the background", schema: z.object({ accepted: z.literal(true) }) } },
  errors: { 401: "no such source, no webhook secret, or a signature or token that does not match" },
});
