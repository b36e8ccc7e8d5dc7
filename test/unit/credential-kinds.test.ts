import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildJobSecrets, credentialConflict, type NamedCredential } from "../../server/credentials/bundle";
import {
  createCredentialSchema,
  isEncryptedPrivateKey,
  parseStoredPayload,
  payloadOf,
  privateKeyBodyLines,
  replaceCredentialSchema,
} from "../../server/credentials/kinds";
import { formDefinitionSchema } from "../../server/forms/definition";
import { createMasker } from "../../server/security/mask";

let dir: string;
const keys: Record<string, string> = {};

/** Real keys from ssh-keygen: OpenSSH ed25519 with and without passphrase, PEM RSA with and without. */
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-kinds-"));
  const make = (name: string, args: string[]) => {
    execFileSync("ssh-keygen", ["-q", ...args, "-C", "test", "-f", path.join(dir, name)]);
    keys[name] = fs.readFileSync(path.join(dir, name), "utf8");
    keys[`${name}.pub`] = fs.readFileSync(path.join(dir, `${name}.pub`), "utf8");
  };
  make("ed25519", ["-t", "ed25519", "-N", ""]);
  make("ed25519-pass", ["-t", "ed25519", "-N", "a passphrase"]);
  make("ed25519-b", ["-t", "ed25519", "-N", ""]);
  make("rsa-pem", ["-t", "rsa", "-b", "2048", "-m", "PEM", "-N", ""]);
  make("rsa-pem-pass", ["-t", "rsa", "-b", "2048", "-m", "PEM", "-N", "a passphrase"]);
  make("rsa", ["-t", "rsa", "-b", "2048", "-N", ""]);
  make("ecdsa256", ["-t", "ecdsa", "-b", "256", "-N", ""]);
  make("ecdsa384", ["-t", "ecdsa", "-b", "384", "-N", ""]);
  make("ecdsa521", ["-t", "ecdsa", "-b", "521", "-N", ""]);
  make("ecdsa-pem", ["-t", "ecdsa", "-m", "PEM", "-N", ""]);
  make("ed25519-pkcs8", ["-t", "ed25519", "-m", "PKCS8", "-N", ""]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function errors(input: unknown): Record<string, string> {
  const parsed = createCredentialSchema.safeParse(input);
  if (parsed.success) return {};
  return Object.fromEntries(parsed.error.issues.map((i) => [i.path.join("."), i.message]));
}

describe("ssh credentials", () => {
  it("accepts unencrypted OpenSSH and PEM keys, normalised to LF with one final newline", () => {
    for (const name of ["ed25519", "rsa-pem"]) {
      const messy = `\r\n${keys[name]!.trim().replace(/\n/g, "\r\n")}`;
      const parsed = createCredentialSchema.parse({ name: "deploy", kind: "ssh", username: " deploy ", privateKey: messy });
      expect(payloadOf(parsed)).toEqual({ kind: "ssh", payload: { username: "deploy", privateKey: keys[name] } });
    }
  });

  it("refuses a passphrase, and keys that need one, saying why", () => {
    expect(errors({ name: "d", kind: "ssh", username: "u", privateKey: keys.ed25519, passphrase: "x" }).passphrase).toMatch(
      /not supported: a runner has no ssh-agent/,
    );
    // An empty passphrase (a form's blank input) is no passphrase.
    expect(errors({ name: "d", kind: "ssh", username: "u", privateKey: keys.ed25519, passphrase: "" })).toEqual({});
    for (const name of ["ed25519-pass", "rsa-pem-pass"]) {
      expect(isEncryptedPrivateKey(keys[name]!)).toBe(true);
      expect(errors({ name: "d", kind: "ssh", username: "u", privateKey: keys[name] }).privateKey).toMatch(/encrypted with a passphrase/);
    }
    expect(isEncryptedPrivateKey(keys.ed25519!)).toBe(false);
    expect(isEncryptedPrivateKey(keys["rsa-pem"]!)).toBe(false);
  });

  it("refuses a public key, junk, and a user name with spaces", () => {
    expect(errors({ name: "d", kind: "ssh", username: "u", privateKey: keys["ed25519.pub"] }).privateKey).toMatch(/public key/);
    expect(errors({ name: "d", kind: "ssh", username: "u", privateKey: "hello" }).privateKey).toMatch(/OpenSSH or PEM/);
    expect(errors({ name: "d", kind: "ssh", username: "two words", privateKey: keys.ed25519 }).username).toBeDefined();
    expect(errors({ name: "d", kind: "ssh", privateKey: keys.ed25519 }).username).toBe("is required");
  });
});

describe("ssh credentials: the key is read when it is saved", () => {
  /** The key with its body (the base64 between the markers) changed by `change`, rewrapped at 70. */
  function withBody(key: string, change: (body: string) => string): string {
    const lines = key.trimEnd().split("\n");
    const body = change(lines.slice(1, -1).join(""));
    return [lines[0], ...body.match(/.{1,70}/g)!, lines.at(-1)].join("\n") + "\n";
  }
  const privateKeyError = (privateKey: string) => errors({ name: "d", kind: "ssh", username: "u", privateKey }).privateKey;

  it("accepts every kind of key ssh-keygen writes: OpenSSH ed25519, RSA, ECDSA 256/384/521, PEM RSA and EC, PKCS#8", () => {
    for (const name of ["ed25519", "rsa", "ecdsa256", "ecdsa384", "ecdsa521", "rsa-pem", "ecdsa-pem", "ed25519-pkcs8"]) {
      expect(privateKeyError(keys[name]!), name).toBeUndefined();
    }
  });

  it("refuses garbage between the markers, OpenSSH or PEM, saying it cannot be read", () => {
    const garbage = [
      "-----BEGIN OPENSSH PRIVATE KEY-----\nthis is not a key at all\n-----END OPENSSH PRIVATE KEY-----\n",
      "-----BEGIN OPENSSH PRIVATE KEY-----\nZ2FyYmFnZSBpbnNpZGUgdGhlIG1hcmtlcnM=\n-----END OPENSSH PRIVATE KEY-----\n",
      "-----BEGIN RSA PRIVATE KEY-----\nZ2FyYmFnZSBpbnNpZGUgdGhlIG1hcmtlcnM=\n-----END RSA PRIVATE KEY-----\n",
      "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n",
    ];
    for (const key of garbage) expect(privateKeyError(key), key).toMatch(/^cannot be read as a private key: /);
    expect(privateKeyError(garbage[0]!)).toMatch(/not base64/);
    expect(privateKeyError(garbage[1]!)).toMatch(/not an OpenSSH key/);
  });

  it("refuses a key cut short, and one with a character changed in its private part", () => {
    for (const name of ["ed25519", "rsa", "ecdsa256", "rsa-pem", "ecdsa-pem"]) {
      const cut = withBody(keys[name]!, (body) => body.slice(0, Math.floor((body.length * 0.8) / 4) * 4));
      expect(privateKeyError(cut), `${name} cut short`).toMatch(/^cannot be read as a private key: /);
    }
    // The ed25519 seed starts at byte 161 of the OpenSSH body, base64 character 215.
    const changed = withBody(keys.ed25519!, (body) => body.slice(0, 220) + (body[220] === "A" ? "B" : "A") + body.slice(221));
    expect(privateKeyError(changed)).toMatch(/^cannot be read as a private key: its private and public halves do not belong together/);
    // Two keys spliced: the public key of one (bytes 43..94 of an ed25519 body), the private part of another.
    const bodyOf = (key: string) => Buffer.from(privateKeyBodyLines(key).join(""), "base64");
    const spliced = Buffer.from(bodyOf(keys.ed25519!));
    bodyOf(keys["ed25519-b"]!).copy(spliced, 43, 43, 94);
    expect(privateKeyError(withBody(keys.ed25519!, () => spliced.toString("base64")))).toMatch(/halves do not belong together/);
    expect(privateKeyError(withBody(keys.ed25519!, (body) => body))).toBeUndefined();
  });

  it("still reports an encrypted key as encrypted, not as unreadable", () => {
    for (const name of ["ed25519-pass", "rsa-pem-pass"]) {
      expect(privateKeyError(keys[name]!), name).toMatch(/encrypted with a passphrase/);
    }
  });
});

describe("vault and secret credentials", () => {
  it("takes a one-line vault password", () => {
    expect(errors({ name: "v", kind: "vault", password: "pw with spaces " })).toEqual({});
    expect(errors({ name: "v", kind: "vault", password: "" }).password).toBe("is required");
    expect(errors({ name: "v", kind: "vault", password: "a\nb" }).password).toMatch(/single line/);
    expect(errors({ name: "v", kind: "vault" }).password).toBe("is required");
    expect(errors({ name: "v", kind: "vault", password: 1234 }).password).toBe("must be a string");
  });

  it("takes variables with valid Ansible names and string values", () => {
    expect(errors({ name: "s", kind: "secret", variables: { api_token: "x", _private: "y", ansible_become_password: "z" } })).toEqual({});
    expect(errors({ name: "s", kind: "secret", variables: { "1st": "x" } })["variables.1st"]).toMatch(/not a valid Ansible variable name/);
    expect(errors({ name: "s", kind: "secret", variables: { "a-b": "x" } })["variables.a-b"]).toBeDefined();
    expect(errors({ name: "s", kind: "secret", variables: { a: 5 } })["variables.a"]).toBe("must be a string");
    expect(errors({ name: "s", kind: "secret", variables: {} }).variables).toMatch(/at least one/);
    expect(errors({ name: "s", kind: "secret" }).variables).toMatch(/is required/);
    // Sent, but of the wrong type: said so, not "is required".
    expect(errors({ name: "s", kind: "secret", variables: 12345 }).variables).toBe("must be an object of variable name → value");
  });

  it("names the kinds, checks names, and keeps only the payload", () => {
    expect(errors({ name: "x", kind: "token" }).kind).toBe("kind must be one of: ssh, vault, secret");
    expect(errors({ name: "Prod DB", kind: "vault", password: "x" }).name).toBeDefined();
    const parsed = createCredentialSchema.parse({ name: "v", kind: "vault", password: "pw", description: "d", extra: "dropped" });
    expect(parsed).toMatchObject({ name: "v", description: "d" });
    expect(payloadOf(parsed)).toEqual({ kind: "vault", payload: { password: "pw" } });
    expect(replaceCredentialSchema.parse({ kind: "vault", password: "pw" }).description).toBeUndefined();
  });

  it("checks a stored payload against its kind", () => {
    expect(parseStoredPayload("vault", '{"password":"pw"}')).toEqual({ kind: "vault", payload: { password: "pw" } });
    expect(() => parseStoredPayload("vault", '{"variables":{}}')).toThrow();
    expect(() => parseStoredPayload("token", "{}")).toThrow(/unknown credential kind/);
  });
});

describe("forms naming credentials", () => {
  const form = { name: "f", title: "F", playbook: "site.yml" };
  it("defaults to none and refuses a name twice", () => {
    expect(formDefinitionSchema.parse(form).credentials).toEqual([]);
    expect(formDefinitionSchema.parse({ ...form, credentials: ["db", "prod-ssh"] }).credentials).toEqual(["db", "prod-ssh"]);
    expect(formDefinitionSchema.safeParse({ ...form, credentials: ["db", "db"] }).success).toBe(false);
    expect(formDefinitionSchema.safeParse({ ...form, credentials: ["Not Valid"] }).success).toBe(false);
  });
});

describe("the job's secrets bundle", () => {
  const ssh = (name: string): NamedCredential => ({ name, kind: "ssh", payload: { username: "deploy", privateKey: keys.ed25519! } });
  const vault = (name: string): NamedCredential => ({ name, kind: "vault", payload: { password: `vault-${name}` } });
  const secret = (name: string, variables: Record<string, string>): NamedCredential => ({ name, kind: "secret", payload: { variables } });

  it("allows one ssh and one vault credential, and one credential per variable", () => {
    expect(credentialConflict([ssh("a"), vault("b"), secret("c", { x: "1" }), secret("d", { y: "2" })])).toBeNull();
    expect(credentialConflict([ssh("a"), ssh("b")])).toMatch(/at most one ssh credential, this one names "a" and "b"/);
    expect(credentialConflict([vault("a"), vault("b")])).toMatch(/at most one vault credential/);
    expect(credentialConflict([secret("a", { x: "1" }), secret("b", { x: "2" })])).toBe('credentials "a" and "b" both set the variable x');
    expect(credentialConflict([ssh("a"), secret("b", { ansible_user: "root" })])).toMatch(/both set the variable ansible_user/);
  });

  it("hides and masks every secret value; the key goes as sshKey, never as an extravar", () => {
    const secrets = buildJobSecrets([ssh("login"), vault("v"), secret("s", { api_token: "tok-123456" })], {
      db_password: "form-password",
      other: { __ansible_unsafe: "{{ unsafe-pw }}" },
    });
    expect(secrets.hiddenExtravars).toEqual({
      db_password: "form-password",
      other: { __ansible_unsafe: "{{ unsafe-pw }}" },
      api_token: "tok-123456",
    });
    expect(secrets.vaultPassword).toBe("vault-v");
    expect(secrets.sshKey).toEqual({ username: "deploy", privateKey: keys.ed25519 });
    const bodyLines = privateKeyBodyLines(keys.ed25519!);
    expect(bodyLines.length).toBeGreaterThan(2);
    expect(secrets.maskValues).toEqual(
      expect.arrayContaining(["form-password", "{{ unsafe-pw }}", "tok-123456", "vault-v", keys.ed25519, ...bodyLines]),
    );
    expect(secrets.maskValues).not.toContain("deploy"); // a user name is not a secret
    // What `cat key` prints comes out without one line of the key.
    const masked = createMasker(secrets.maskValues)(keys.ed25519!);
    for (const line of bodyLines) expect(masked).not.toContain(line);
  });

  it("without credentials is the form's passwords only", () => {
    expect(buildJobSecrets([], { pw: "hunter22" })).toEqual({
      hiddenExtravars: { pw: "hunter22" },
      vaultPassword: null,
      sshKey: null,
      maskValues: ["hunter22"],
    });
  });
});
