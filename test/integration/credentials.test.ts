/**
 * Stored credentials through a real run: created through the API, encrypted at rest, sealed to
 * the runner, and used by real ansible-playbook: the vault password on stdin, a secret variable
 * in the hidden extravars file, an ssh key in a 0600 file that is gone after the job. Every
 * secret is masked in the output and none comes back from the API.
 */
import { createHash, randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultJobsDir } from "../../server/rte/env";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";

const VAULT_PASSWORD = "fixture-vault-password-7Qx"; // the fixture's vaulted_value is encrypted with it
const SSH_USER = "deploy-user";

let keyDir: string;
let privateKey: string;
let keyBodyLines: string[];

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function newKey(name: string, passphrase = ""): string {
  const file = path.join(keyDir, name);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", passphrase, "-C", "playform-test", "-f", file]);
  return fs.readFileSync(file, "utf8");
}

beforeAll(() => {
  keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-keys-"));
  privateKey = newKey("id_ed25519");
  keyBodyLines = privateKey.split("\n").filter((line) => line && !line.startsWith("-----"));
});
afterAll(() => {
  if (keyDir) fs.rmSync(keyDir, { recursive: true, force: true });
});

// SQLite with the generated key file; PostgreSQL the way several nodes run: ENCRYPTION_SECRET set.
describe.each(["sqlite", "postgresql"] as const)("on %s", (provider) => {
  let app: RunningPlayform;
  let api: ApiClient;
  let postgres: TestPostgres | undefined;
  const token = `tok-${randomBytes(12).toString("hex")}`;

  beforeAll(async () => {
    const env: Record<string, string> = { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-credentials") };
    if (provider === "postgresql") {
      postgres = await startPostgres();
      env.DATABASE_URL = postgres.url;
      env.ENCRYPTION_SECRET = randomBytes(32).toString("base64");
    }
    app = await startPlayform({ env });
    api = apiClient(app, await adminToken(app));
  });
  afterAll(async () => {
    await app?.stop();
    await postgres?.stop();
  });

  describe("managing credentials", () => {
    it("generates the encryption key next to the SQLite database (mode 0600, said once), or uses ENCRYPTION_SECRET", () => {
      const file = path.join(app.dataDir, "encryption.key");
      if (provider === "sqlite") {
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
        expect(app.output().match(/generated ENCRYPTION_SECRET into/g)).toHaveLength(1);
      } else {
        expect(fs.existsSync(file)).toBe(false);
        expect(app.output()).not.toMatch(/ENCRYPTION_SECRET into|encryption\.key/);
      }
    });

    it("creates one credential of each kind", async () => {
      const created = await Promise.all([
        api.call("POST", "/api/credentials", { json: { name: "test-vault", kind: "vault", password: VAULT_PASSWORD } }),
        api.call("POST", "/api/credentials", {
          json: { name: "test-secret", kind: "secret", description: "API token", variables: { api_token: "first-value-1234" } },
        }),
        api.call("POST", "/api/credentials", { json: { name: "test-ssh", kind: "ssh", username: SSH_USER, privateKey } }),
      ]);
      for (const answer of created) expect(answer.status, JSON.stringify(answer.json)).toBe(201);
      expect(created[1]!.json.credential).toMatchObject({
        name: "test-secret",
        kind: "secret",
        description: "API token",
        usedBy: ["credentials-check"],
      });
    });

    it("replaces a secret, keeping the kind", async () => {
      const replaced = await api.call("PUT", "/api/credentials/test-secret", { json: { kind: "secret", variables: { api_token: token } } });
      expect(replaced.status, JSON.stringify(replaced.json)).toBe(200);
      expect(replaced.json.credential.description).toBe("API token"); // kept when not sent
      const kindChange = await api.call("PUT", "/api/credentials/test-secret", { json: { kind: "vault", password: "x" } });
      expect(kindChange.status).toBe(422);
      expect(kindChange.json.error.fields.kind).toMatch(/cannot change from secret to vault/);
      expect((await api.call("PUT", "/api/credentials/nope", { json: { kind: "vault", password: "x" } })).status).toBe(404);
    });

    it("refuses bad input with field errors, and taken names", async () => {
      const post = (json: unknown) => api.call("POST", "/api/credentials", { json });
      const withPassphrase = await post({ name: "k1", kind: "ssh", username: "u", privateKey, passphrase: "secret" });
      expect(withPassphrase.status).toBe(422);
      expect(withPassphrase.json.error.fields.passphrase).toMatch(/not supported/);
      const encryptedKey = await post({
        name: "k2",
        kind: "ssh",
        username: "u",
        privateKey: newKey(`with_passphrase_${provider}`, "pass phrase"),
      });
      expect(encryptedKey.status).toBe(422);
      expect(encryptedKey.json.error.fields.privateKey).toMatch(/encrypted with a passphrase/);
      const publicKey = await post({
        name: "k3",
        kind: "ssh",
        username: "u",
        privateKey: fs.readFileSync(path.join(keyDir, "id_ed25519.pub"), "utf8"),
      });
      expect(publicKey.json.error.fields.privateKey).toMatch(/public key/);
      // Garbage between the markers, or a key cut short, is parsed and refused, not stored.
      const lines = privateKey.trimEnd().split("\n");
      const unreadable = {
        "openssh-garbage": "-----BEGIN OPENSSH PRIVATE KEY-----\nthis is not a key at all\n-----END OPENSSH PRIVATE KEY-----\n",
        "pem-garbage": "-----BEGIN RSA PRIVATE KEY-----\nZ2FyYmFnZSBpbnNpZGUgdGhlIG1hcmtlcnM=\n-----END RSA PRIVATE KEY-----\n",
        "openssh-truncated": [...lines.slice(0, -2), lines.at(-1)].join("\n"),
      };
      for (const [name, key] of Object.entries(unreadable)) {
        const refused = await post({ name, kind: "ssh", username: "u", privateKey: key });
        expect(refused.status, name).toBe(422);
        expect(refused.json.error.fields.privateKey, name).toMatch(/cannot be read as a private key: /);
      }
      const listed = (await api.get("/api/credentials")).credentials.map((c: { name: string }) => c.name);
      for (const name of Object.keys(unreadable)) expect(listed).not.toContain(name);
      const badVariable = await post({ name: "s1", kind: "secret", variables: { "1st": "x", ok: "y" } });
      expect(badVariable.status).toBe(422);
      expect(badVariable.json.error.fields["variables.1st"]).toMatch(/not a valid Ansible variable name/);
      const badKind = await post({ name: "x1", kind: "password", password: "x" });
      expect(badKind.json.error.fields.kind).toMatch(/ssh, vault, secret/);
      const badName = await post({ name: "Bad Name", kind: "vault", password: "x" });
      expect(badName.json.error.fields.name).toBeDefined();
      const taken = await post({ name: "test-vault", kind: "vault", password: "other" });
      expect(taken.status).toBe(409);
      expect((await api.call("POST", "/api/credentials", { body: "{", type: "application/json" })).status).toBe(400);
    });

    it("lists names, kinds and dates, never a secret value", async () => {
      const answer = await api.call("GET", "/api/credentials");
      expect(answer.status).toBe(200);
      expect(answer.json.credentials.map((c: { name: string; kind: string }) => [c.name, c.kind])).toEqual([
        ["test-secret", "secret"],
        ["test-ssh", "ssh"],
        ["test-vault", "vault"],
      ]);
      for (const credential of answer.json.credentials) {
        expect(Object.keys(credential).sort()).toEqual(["createdAt", "description", "kind", "name", "updatedAt", "usedBy"]);
      }
      const text = JSON.stringify(answer.json);
      for (const secret of [VAULT_PASSWORD, token, "first-value-1234", SSH_USER, ...keyBodyLines]) expect(text).not.toContain(secret);
      expect((await api.call("GET", "/api/credentials", { auth: false })).status).toBe(401);
    });

    it("stores no plaintext in the database", async () => {
      const rows = await dbQuery<{ name: string; encrypted: string }>(app, 'SELECT name, encrypted FROM "Credential" ORDER BY name');
      expect(rows.map((r) => r.name)).toEqual(["test-secret", "test-ssh", "test-vault"]);
      const stored = JSON.stringify(rows);
      const secrets = [VAULT_PASSWORD, token, SSH_USER, "api_token", ...keyBodyLines];
      for (const secret of secrets) {
        expect(stored).not.toContain(secret);
        expect(stored).not.toContain(Buffer.from(secret).toString("base64").replace(/=+$/, ""));
      }
      // Distinct ciphertexts, each the documented format: version 1 | IV | tag | ciphertext.
      for (const row of rows) expect(Buffer.from(row.encrypted, "base64")[0]).toBe(1);
    });

    it("refuses to delete a credential a form names, deletes one nobody names", async () => {
      const named = await api.call("DELETE", "/api/credentials/test-secret");
      expect(named.status).toBe(409);
      expect(named.json.error.message).toMatch(/credentials-check/);
      expect((await api.call("POST", "/api/credentials", { json: { name: "spare", kind: "vault", password: "spare-pw" } })).status).toBe(
        201,
      );
      expect((await api.call("DELETE", "/api/credentials/spare")).status).toBe(204);
      expect((await api.call("DELETE", "/api/credentials/spare")).status).toBe(404);
    });
  });

  describe("a job using credentials", () => {
    it("decrypts the vault, sees the secret and the ssh login, masks them, and leaves no key behind", async () => {
      const id = await api.launch("credentials-check");
      const job = await api.waitForEnd(id);
      const output = await api.output(id);
      expect(job.status, output).toBe("success");

      // (a) the vault password reached ansible (on stdin, through the vault password script).
      expect(output).toContain("vault-derived=EULAV-ERUTXIF-DETLUAV");
      // (b) the secret variable arrived (its hash proves it) and is masked raw and in base64.
      expect(output).toContain(`sha256=${sha256(token)}`);
      expect(output).toContain("raw=********");
      expect(output).toContain("b64=********");
      for (const leaked of [token, Buffer.from(token).toString("base64"), Buffer.from(token).toString("base64").replace(/=+$/, "")]) {
        expect(output).not.toContain(leaked);
      }
      // (c) the key file existed with mode 0600 inside the job folder, and the login was set.
      const login = /key exists=True mode=0600 user=deploy-user path=(\S+?)"/.exec(output);
      expect(login, output).not.toBeNull();
      const keyFile = login![1]!;
      const jobDir = path.join(defaultJobsDir(path.join(app.dataDir, "rte/work")), String(id));
      expect(path.dirname(keyFile)).toBe(jobDir);
      // The key printed by `cat` comes out masked line by line.
      for (const line of keyBodyLines) expect(output).not.toContain(line);
      expect(output).not.toContain(VAULT_PASSWORD);

      // After the job: no key file, no job folder, no hidden extravars file.
      expect(fs.existsSync(keyFile)).toBe(false);
      expect(fs.existsSync(jobDir)).toBe(false);
      expect(fs.existsSync(path.join(jobDir, `.playform_hidden_extravars_${id}.json`))).toBe(false);
    });

    it("uses a credential replaced after the form was imported", async () => {
      const newer = `tok-${randomBytes(12).toString("hex")}`;
      const replaced = await api.call("PUT", "/api/credentials/test-secret", { json: { kind: "secret", variables: { api_token: newer } } });
      expect(replaced.status).toBe(200);
      const id = await api.launch("credentials-check");
      const job = await api.waitForEnd(id);
      const output = await api.output(id);
      expect(job.status, output).toBe("success");
      expect(output).toContain(`sha256=${sha256(newer)}`);
      expect(output).not.toContain(newer);
    });

    it("refuses to launch a form naming a credential that does not exist, naming it", async () => {
      const answer = await api.call("POST", "/api/jobs", { json: { form: "unknown-credential", values: {} } });
      expect(answer.status, JSON.stringify(answer.json)).toBe(422);
      expect(answer.json.error.message).toMatch(/"no-such-credential" does not exist/);
    });
  });
});
