/** Contracts of runners (admins) and of the join handshake (RTEs, no credentials) (server/api/contract.ts). */
import { z } from "zod";
import { joinRequestSchema, joinStatusAnswerSchema, joinStatusRequestSchema } from "../../protocol/join";
import { endpoint } from "../contract";

const environmentSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    ansibleCore: z.string().nullable().meta({ description: "ansible-core's version (`ansible-playbook --version`); null when unknown" }),
    python: z.string().nullable().meta({ description: "the Python ansible runs under" }),
    collections: z
      .array(z.object({ name: z.string(), version: z.string() }))
      .meta({ description: "`ansible-galaxy collection list`, one per name (the version ansible loads), sorted by name" }),
    error: z
      .string()
      .nullable()
      .meta({ description: "why the environment is broken (no ansible-playbook, a timeout…); null when it works" }),
  })
  .meta({ id: "RunnerEnvironment", description: "An Ansible environment a runner offers, as its RTE found it at start (docs/rte.md)" });

const runnerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(["pending", "approved", "rejected", "revoked"]),
    isDefault: z.boolean(),
    mode: z.string(),
    address: z.string().nullable(),
    joinAddress: z.string().nullable().meta({ description: "the client address its join request came from, as the app saw it" }),
    hostName: z.string().nullable().meta({ description: "the host name the RTE reported when it asked to join" }),
    version: z.string().nullable(),
    capacity: z.number().int(),
    certFingerprint: z.string().nullable().meta({ description: "inbound: the pinned SHA-256 fingerprint of its TLS certificate" }),
    certPinnedAt: z.string().nullable(),
    inboundNoTls: z.boolean().meta({ description: "inbound: an admin allowed plain http (nothing pinned)" }),
    linkError: z.string().nullable().meta({ description: "inbound: why the app last failed to connect (a different certificate, say)" }),
    linkErrorAt: z.string().nullable(),
    presentedFingerprint: z
      .string()
      .nullable()
      .meta({ description: "inbound: the fingerprint the runner last presented; re-pin to trust it" }),
    linkHolder: z.string().nullable().meta({ description: "inbound: the app node (PLAYFORM_NODE_ID) that holds the link to this runner" }),
    lastHeartbeatAt: z.string().nullable(),
    createdAt: z.string(),
    decidedAt: z.string().nullable(),
    runningJobs: z.number().int(),
    queuedJobs: z.number().int(),
    environments: z.array(environmentSchema).meta({
      description:
        "each environment its instances report, once by name: a connected instance's report before a disconnected one's, one without error before one with, then the most recently connected",
    }),
    instances: z.array(
      z.object({
        instanceId: z.string(),
        connected: z.boolean(),
        runningJobs: z.number().int(),
        capacity: z.number().int(),
        version: z.string().nullable(),
        lastSeenAt: z.string(),
        environments: z
          .array(environmentSchema)
          .meta({ description: "what it reported at its last connection; empty for an RTE too old to report environments" }),
      }),
    ),
  })
  .meta({ id: "Runner" });

export const listRunners = endpoint({
  method: "get",
  path: "/api/runners",
  summary: "Every runner with its instances and job counts",
  tags: ["runners"],
  access: "admin",
  responses: { 200: { description: "the runners", schema: z.object({ runners: z.array(runnerSchema) }) } },
});

export const deleteRunner = endpoint({
  method: "delete",
  path: "/api/runners/[id]",
  summary: "Delete a rejected runner: it is no longer listed and its name may ask to join again",
  tags: ["runners"],
  access: "admin",
  params: z.object({ id: z.string().meta({ description: "the runner's id" }) }),
  responses: { 204: { description: "deleted" } },
  errors: { 404: "no such runner", 409: "the runner is not rejected (revoke an approved one; decide a pending one first)" },
});

export const runnerAction = endpoint({
  method: "post",
  path: "/api/runners/[id]/[action]",
  summary:
    "approve, reject, revoke, rotate (a new token, shown once), default; inbound runners: repin (trust the certificate it presents now), no-tls, require-tls",
  tags: ["runners"],
  access: "admin",
  params: z.object({
    id: z.string().meta({ description: "the runner's id" }),
    action: z.enum(["approve", "reject", "revoke", "rotate", "default", "repin", "no-tls", "require-tls"]),
  }),
  responses: {
    200: {
      description: "the runner's new state (rotate: and its token; repin: the pinned fingerprint)",
      schema: z.object({
        status: z.enum(["approved", "rejected", "revoked"]).optional(),
        token: z.string().optional(),
        isDefault: z.boolean().optional(),
        certFingerprint: z.string().optional(),
        inboundNoTls: z.boolean().optional(),
      }),
    },
  },
  errors: { 404: "no such runner or action", 409: "the runner's state does not allow the action" },
});

export const joinRunner = endpoint({
  method: "post",
  path: "/api/runners/join",
  summary: "An RTE without a token asks to join (pending until an admin approves it)",
  tags: ["join"],
  access: "public",
  body: { schema: joinRequestSchema },
  responses: {
    202: {
      description: "waiting for approval",
      schema: z.object({ runnerId: z.string(), joinSecret: z.string(), status: z.literal("pending") }),
    },
  },
  errors: { 409: "the name is taken", 429: "throttled (per address, or too many runners waiting); Retry-After" },
});

export const joinStatus = endpoint({
  method: "post",
  path: "/api/runners/join/status",
  summary: "The waiting RTE polls here; an approved runner's token is answered exactly once",
  tags: ["join"],
  access: "public",
  body: { schema: joinStatusRequestSchema },
  responses: { 200: { description: "the join request's state", schema: joinStatusAnswerSchema } },
});
