/**
 * Sealing a job's credentials for exactly one runner and one job.
 *
 * Key = HKDF-SHA256(ikm = runner token, salt = empty, info = "job:<id>"), AES-256-GCM with the
 * same "job:<id>" as additional authenticated data. Only the runner holding the token can open
 * the bundle, only for that job id, and a bundle changed by one byte fails authentication.
 * Format (base64): version byte 1 | 12-byte IV | 16-byte tag | ciphertext.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const FORMAT_VERSION = 1;

function jobKey(runnerToken: string, jobId: number): { key: Buffer; aad: Buffer } {
  const info = Buffer.from(`job:${jobId}`, "utf8");
  const key = Buffer.from(hkdfSync("sha256", Buffer.from(runnerToken, "utf8"), Buffer.alloc(0), info, 32));
  return { key, aad: info };
}

export function sealForJob(runnerToken: string, jobId: number, plaintext: string): string {
  const { key, aad } = jobKey(runnerToken, jobId);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.from([FORMAT_VERSION]), iv, cipher.getAuthTag(), body]).toString("base64");
}

export class SealError extends Error {}

export function openForJob(runnerToken: string, jobId: number, sealed: string): string {
  const raw = Buffer.from(sealed, "base64");
  if (raw.length < 29 || raw[0] !== FORMAT_VERSION) throw new SealError("sealed bundle has an unknown format");
  const { key, aad } = jobKey(runnerToken, jobId);
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(1, 13));
  decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(13, 29));
  try {
    return Buffer.concat([decipher.update(raw.subarray(29)), decipher.final()]).toString("utf8");
  } catch {
    throw new SealError("sealed bundle cannot be opened with this runner's token for this job");
  }
}
