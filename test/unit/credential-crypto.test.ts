import { createCipheriv, hkdfSync } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CredentialCryptoError, decryptCredential, deriveCredentialKey, encryptCredential } from "../../server/security/credential-crypto";
import { encryptionSecretSource } from "../../server/config";
import { initEncryptionSecret } from "../../server/security/encryption-secret";

const SECRET = "an-encryption-secret-of-at-least-32-chars";
const KEY = deriveCredentialKey(SECRET);
const ID = "5b0c8d1e-credential-id";
const PAYLOAD = JSON.stringify({ password: "vault-pässword" });

function decryptError(key: Buffer, id: string, encrypted: string): unknown {
  try {
    decryptCredential(key, id, encrypted);
  } catch (error) {
    return error;
  }
  return null;
}

describe("encryptCredential / decryptCredential", () => {
  it("round-trips, with a fresh IV every time", () => {
    const a = encryptCredential(KEY, ID, PAYLOAD);
    const b = encryptCredential(KEY, ID, PAYLOAD);
    expect(decryptCredential(KEY, ID, a)).toBe(PAYLOAD);
    expect(decryptCredential(KEY, ID, b)).toBe(PAYLOAD);
    expect(a).not.toBe(b);
    const raw = Buffer.from(a, "base64");
    expect(raw[0]).toBe(1);
    expect(raw.length).toBe(1 + 12 + 16 + Buffer.byteLength(PAYLOAD));
    expect(raw.includes(Buffer.from("vault-pässword"))).toBe(false);
  });

  it("derives the key with HKDF-SHA256, info playform:credentials:v1, empty salt", () => {
    const expected = Buffer.from(hkdfSync("sha256", SECRET, Buffer.alloc(0), "playform:credentials:v1", 32));
    expect(KEY.equals(expected)).toBe(true);
    // So an independent AES-256-GCM implementation with that key and AAD = id opens it.
    const iv = Buffer.alloc(12, 7);
    const cipher = createCipheriv("aes-256-gcm", expected, iv).setAAD(Buffer.from(ID));
    const body = Buffer.concat([cipher.update(PAYLOAD), cipher.final()]);
    const encrypted = Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), body]).toString("base64");
    expect(decryptCredential(KEY, ID, encrypted)).toBe(PAYLOAD);
  });

  it("refuses another ENCRYPTION_SECRET", () => {
    const encrypted = encryptCredential(KEY, ID, PAYLOAD);
    const error = decryptError(deriveCredentialKey(`${SECRET}-rotated`), ID, encrypted);
    expect(error).toBeInstanceOf(CredentialCryptoError);
    expect((error as Error).message).toMatch(/ENCRYPTION_SECRET/);
  });

  it("refuses a ciphertext changed by one byte, anywhere", () => {
    const raw = Buffer.from(encryptCredential(KEY, ID, PAYLOAD), "base64");
    for (const index of [1, 12, 13, 28, 29, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[index]! ^= 0x01;
      expect(decryptError(KEY, ID, tampered.toString("base64")), `byte ${index}`).toBeInstanceOf(CredentialCryptoError);
    }
  });

  it("refuses the ciphertext of another credential's row (AAD = id)", () => {
    const encrypted = encryptCredential(KEY, ID, PAYLOAD);
    expect(decryptError(KEY, "another-credential-id", encrypted)).toBeInstanceOf(CredentialCryptoError);
  });

  it("refuses an unknown format", () => {
    const raw = Buffer.from(encryptCredential(KEY, ID, PAYLOAD), "base64");
    raw[0] = 2;
    expect((decryptError(KEY, ID, raw.toString("base64")) as Error).message).toMatch(/unknown format/);
    expect(decryptError(KEY, ID, "c2hvcnQ=")).toBeInstanceOf(CredentialCryptoError);
  });
});

describe("initEncryptionSecret", () => {
  it("puts the generated key next to the SQLite database, else in ./data", () => {
    const keyFile = (DATABASE_URL: string) => encryptionSecretSource({ DATABASE_URL }).keyFile;
    expect(keyFile("file:/var/lib/playform/playform.db")).toBe("/var/lib/playform/encryption.key");
    expect(keyFile("file::memory:")).toBe(path.resolve("data/encryption.key"));
    expect(keyFile("postgresql://db/playform")).toBe(path.resolve("data/encryption.key"));
    expect(encryptionSecretSource({ DATABASE_URL: "postgresql://db/playform" }).multiNode).toBe(true);
  });

  it("generates a 0600 key file once, then reads it back; ENCRYPTION_SECRET wins when set", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-key-"));
    try {
      const config = encryptionSecretSource({ DATABASE_URL: `file:${path.join(dir, "db", "playform.db")}` });
      const lines: string[] = [];
      expect(initEncryptionSecret(config, (line) => lines.push(line))).toBe("generated");
      const file = path.join(dir, "db", "encryption.key");
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(file, "utf8").trim().length).toBeGreaterThanOrEqual(32);
      expect(lines.join("\n")).toMatch(/generated ENCRYPTION_SECRET into .*several app nodes need the same ENCRYPTION_SECRET/is);
      const before = fs.readFileSync(file, "utf8");
      expect(initEncryptionSecret(config, (line) => lines.push(line))).toBe("file");
      expect(fs.readFileSync(file, "utf8")).toBe(before);
      expect(lines.filter((l) => l.includes("generated"))).toHaveLength(1);
      expect(initEncryptionSecret({ ...config, ENCRYPTION_SECRET: SECRET }, () => undefined)).toBe("env");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
