/**
 * Encryption of stored credentials at rest.
 *
 * Key = HKDF-SHA256(ikm = ENCRYPTION_SECRET, salt = empty, info = "playform:credentials:v1"),
 * AES-256-GCM with a fresh 12-byte IV per value and the credential's id as additional
 * authenticated data: a ciphertext copied onto another credential's row (same key, other id)
 * fails to open instead of silently handing out the other secret.
 * Format (base64): version byte 1 | 12-byte IV | 16-byte tag | ciphertext.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const FORMAT_VERSION = 1;
const KEY_INFO = "playform:credentials:v1";

export class CredentialCryptoError extends Error {}

/** The AES key for credentials, derived from ENCRYPTION_SECRET. */
export function deriveCredentialKey(encryptionSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(encryptionSecret, "utf8"), Buffer.alloc(0), Buffer.from(KEY_INFO, "utf8"), 32));
}

export function encryptCredential(key: Buffer, credentialId: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(credentialId, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.from([FORMAT_VERSION]), iv, cipher.getAuthTag(), body]).toString("base64");
}

export function decryptCredential(key: Buffer, credentialId: string, encrypted: string): string {
  const raw = Buffer.from(encrypted, "base64");
  if (raw.length < 29 || raw[0] !== FORMAT_VERSION) throw new CredentialCryptoError("stored credential has an unknown format");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(1, 13));
  decipher.setAAD(Buffer.from(credentialId, "utf8"));
  decipher.setAuthTag(raw.subarray(13, 29));
  try {
    return Buffer.concat([decipher.update(raw.subarray(29)), decipher.final()]).toString("utf8");
  } catch {
    // The usual cause is operational, not an attack: say what to check.
    throw new CredentialCryptoError(
      "stored credential cannot be decrypted: ENCRYPTION_SECRET (or data/encryption.key) is not the one it was stored with",
    );
  }
}
