/**
 * Opaque bearer secrets (sessions, API tokens, runner tokens). Only their SHA-256 is stored,
 * so a database dump does not hand out working credentials.
 */
import { createHash, randomBytes } from "node:crypto";

export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

export function sha256Hex(value: string | Buffer): string {
  return createHash("sha256").update(value).digest("hex");
}
