/**
 * The kinds of credential and what each one holds, as zod schemas: the API validates what an
 * admin sends with these, and the same shapes are what gets encrypted and, at dispatch, opened.
 *
 * - ssh:    the ansible login: `{username, privateKey}`. Passphrase-protected keys are refused:
 *           a runner has no ssh-agent to unlock them, and ssh would stop at a prompt nobody sees.
 * - vault:  `{password}` for ansible-vault encrypted files and strings.
 * - secret: `{variables: {name: value}}`, extra variables that only the playbook sees.
 */
import { z } from "zod";
import { privateKeyProblem } from "./private-key";

export const CREDENTIAL_KINDS = ["ssh", "vault", "secret"] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** Names appear in form.yaml and in URLs (/api/credentials/NAME). */
export const CREDENTIAL_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;
export const credentialNameSchema = z
  .string()
  .regex(CREDENTIAL_NAME, "must be lowercase letters, digits, '-', '_' or '.', starting with a letter or digit (at most 63)");

const ANSIBLE_VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const PASSPHRASE_UNSUPPORTED =
  "passphrase-protected keys are not supported: a runner has no ssh-agent to unlock them. " +
  "Remove the passphrase from a copy of the key (ssh-keygen -p -N '' -f COPY) and store that: Playform encrypts it at rest";

const PEM_KEY = /^-----BEGIN ([A-Z0-9]+(?: [A-Z0-9]+)* )?PRIVATE KEY-----\n[\s\S]+\n-----END \1?PRIVATE KEY-----\n$/;

/** LF line ends, no surrounding blank lines, one final newline: OpenSSH refuses a key without it. */
export function normalizePrivateKey(text: string): string {
  return `${text.replace(/\r\n?/g, "\n").trim()}\n`;
}

/** The base64 lines between the BEGIN and END markers (PEM headers such as `Proc-Type:` left out). */
export function privateKeyBodyLines(key: string): string[] {
  return key
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("-----") && !line.includes(":"));
}

/** True when the key needs a passphrase: PEM `ENCRYPTED` headers, or an OpenSSH key whose cipher is not "none". */
export function isEncryptedPrivateKey(key: string): boolean {
  const headers = key.split("\n").filter((line) => line.startsWith("-----") || line.includes(":"));
  if (headers.some((line) => line.includes("ENCRYPTED"))) return true;
  if (!key.startsWith("-----BEGIN OPENSSH PRIVATE KEY-----")) return false;
  // openssh-key-v1 format: "openssh-key-v1\0", then the cipher name as a uint32-length string.
  const raw = Buffer.from(privateKeyBodyLines(key).join(""), "base64");
  const magic = "openssh-key-v1\0";
  if (raw.length < magic.length + 4 || raw.subarray(0, magic.length).toString("latin1") !== magic) return false;
  const length = raw.readUInt32BE(magic.length);
  const cipher = raw.subarray(magic.length + 4, magic.length + 4 + length).toString("latin1");
  return cipher !== "none";
}

/** "is required" when absent; sent with another type, says so. */
const REQUIRED_STRING = { error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : "must be a string") };

const privateKeySchema = z
  .string(REQUIRED_STRING)
  .max(64_000, "is too long for a private key")
  .transform(normalizePrivateKey)
  .superRefine((key, ctx) => {
    if (/^(ssh-|ecdsa-|sk-)\S+ [A-Za-z0-9+/=]+/.test(key) || key.includes("PUBLIC KEY-----")) {
      ctx.addIssue({ code: "custom", message: "this is a public key: paste the private key (the file without .pub)" });
    } else if (!PEM_KEY.test(key)) {
      ctx.addIssue({
        code: "custom",
        message: "must be a private key in OpenSSH or PEM format, from -----BEGIN … PRIVATE KEY----- to -----END … PRIVATE KEY-----",
      });
    } else if (isEncryptedPrivateKey(key)) {
      ctx.addIssue({ code: "custom", message: `this key is encrypted with a passphrase; ${PASSPHRASE_UNSUPPORTED}` });
    } else {
      // Markers alone prove nothing: the key is read, so garbage or a key cut short is refused now.
      const problem = privateKeyProblem(key, privateKeyBodyLines(key));
      if (problem) ctx.addIssue({ code: "custom", message: `cannot be read as a private key: ${problem}` });
    }
  });

/** What each kind stores (encrypted). */
export const sshPayloadSchema = z.object({
  username: z
    .string(REQUIRED_STRING)
    .trim()
    .min(1, "is required")
    .max(255)
    .regex(/^[^\s@:]+$/, "must be a user name (no spaces, '@' or ':')"),
  privateKey: privateKeySchema,
});
export const vaultPayloadSchema = z.object({
  // The password reaches ansible as one line on stdin; ansible strips the line end.
  password: z
    .string(REQUIRED_STRING)
    .min(1, "is required")
    .max(4096)
    .regex(/^[^\r\n]*$/, "must be a single line"),
});
export const secretPayloadSchema = z.object({
  variables: z
    .record(z.string().regex(ANSIBLE_VARIABLE), z.string({ error: "must be a string" }).max(1_000_000, "is too long"), {
      error: (issue) =>
        issue.code === "invalid_key"
          ? "is not a valid Ansible variable name (letters, digits and _, not starting with a digit)"
          : issue.code === "invalid_type"
            ? issue.input === undefined
              ? "is required: an object of variable name → value"
              : "must be an object of variable name → value"
            : undefined,
    })
    .refine((variables) => Object.keys(variables).length > 0, "needs at least one variable"),
});

export type SshPayload = z.infer<typeof sshPayloadSchema>;
export type VaultPayload = z.infer<typeof vaultPayloadSchema>;
export type SecretPayload = z.infer<typeof secretPayloadSchema>;
export type CredentialPayload =
  { kind: "ssh"; payload: SshPayload } | { kind: "vault"; payload: VaultPayload } | { kind: "secret"; payload: SecretPayload };

export const PAYLOAD_SCHEMAS = { ssh: sshPayloadSchema, vault: vaultPayloadSchema, secret: secretPayloadSchema } as const;

/** Accepted, but only empty: a non-empty passphrase is refused with the reason. */
const passphraseField = z
  .string()
  .optional()
  .refine((passphrase) => !passphrase, PASSPHRASE_UNSUPPORTED);

const description = z.string().max(1000, "must be at most 1000 characters");
const kindError = { error: `kind must be one of: ${CREDENTIAL_KINDS.join(", ")}` };

/** The secret part of a request, by kind: POST and PUT bodies share it. */
const secretInputSchema = z.discriminatedUnion(
  "kind",
  [
    sshPayloadSchema.extend({ kind: z.literal("ssh"), passphrase: passphraseField }),
    vaultPayloadSchema.extend({ kind: z.literal("vault") }),
    secretPayloadSchema.extend({ kind: z.literal("secret") }),
  ],
  kindError,
);

/** POST /api/credentials: `{name, kind, description?, ...payload}`. */
export const createCredentialSchema = z.intersection(
  z.object({ name: credentialNameSchema, description: description.default("") }),
  secretInputSchema,
);

/** PUT /api/credentials/NAME: `{kind, description?, ...payload}`; the description is kept when absent. */
export const replaceCredentialSchema = z.intersection(z.object({ description: description.optional() }), secretInputSchema);

/** Only the payload fields of a validated request: what gets encrypted. */
export function payloadOf(input: z.infer<typeof secretInputSchema>): CredentialPayload {
  switch (input.kind) {
    case "ssh":
      return { kind: "ssh", payload: { username: input.username, privateKey: input.privateKey } };
    case "vault":
      return { kind: "vault", payload: { password: input.password } };
    case "secret":
      return { kind: "secret", payload: { variables: input.variables } };
  }
}

/** A decrypted payload read back from storage, checked against its kind. */
export function parseStoredPayload(kind: string, json: string): CredentialPayload {
  if (!(CREDENTIAL_KINDS as readonly string[]).includes(kind)) throw new Error(`unknown credential kind "${kind}"`);
  const k = kind as CredentialKind;
  const payload: unknown = PAYLOAD_SCHEMAS[k].parse(JSON.parse(json));
  return { kind: k, payload } as CredentialPayload;
}
