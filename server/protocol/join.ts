/**
 * The join handshake over HTTP, before a runner has a token: `POST /api/runners/join` and
 * `POST /api/runners/join/status`.
 */
import { z } from "zod";

export const joinRequestSchema = z.object({
  v: z.number().int(),
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, "must be 1-63 letters, digits, . _ -"),
  address: z.string().max(500).nullable().default(null),
  mode: z.enum(["outbound", "inbound"]).default("outbound"),
  version: z.string().max(100),
  capacity: z.number().int().min(1).max(1000),
  certFingerprint: z.string().max(200).nullable().default(null),
  /** The RTE machine's host name, shown on the join request card (older RTEs do not send it). */
  hostName: z.string().max(255).nullable().default(null),
});
export type JoinRequestBody = z.infer<typeof joinRequestSchema>;

export const joinAnswerSchema = z.object({ runnerId: z.string(), joinSecret: z.string() });

export const joinStatusRequestSchema = z.object({ v: z.number().int(), runnerId: z.string().min(1), joinSecret: z.string().min(1) });

export const joinStatusAnswerSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("pending") }),
  z.object({ status: z.literal("approved"), token: z.string().min(1) }),
  z.object({ status: z.enum(["collected", "rejected", "revoked", "unknown"]) }),
]);
