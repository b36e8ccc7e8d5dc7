/**
 * Where the app's ENCRYPTION_SECRET comes from, and the credential key derived from it.
 *
 * Set: the variable is the secret. Unset: the app generates one on first start into a key file,
 * mode 0600, and reads it back on later starts. Which file is the caller's choice
 * (server/config.ts: `encryption.key` next to the SQLite database, data/encryption.key by
 * default; data/ too when the database is PostgreSQL). Several app nodes must share one secret,
 * or a credential stored through one node cannot be read on another: with more than one node,
 * set ENCRYPTION_SECRET on all of them.
 *
 * The derived key is held on globalThis, like the database client: the custom server and
 * Next's route handlers are separately bundled module graphs in one process, and both need it.
 * It is never put in process.env, so no child process (the local RTE, a playbook) inherits it.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { deriveCredentialKey } from "./credential-crypto";

const KEY = Symbol.for("playform.credentialKey");
const store = globalThis as typeof globalThis & { [KEY]?: Buffer };
const MIN_LENGTH = 32;

export interface EncryptionSecretSource {
  /** The configured secret, if any: it wins. */
  ENCRYPTION_SECRET?: string;
  /** Otherwise the secret is read from this file, or generated into it on first start. */
  keyFile: string;
  /** Whether several app nodes may share the database: a secret held in one node's file is then worth a warning. */
  multiNode: boolean;
}

function readKeyFile(file: string): string {
  const secret = fs.readFileSync(file, "utf8").trim();
  if (secret.length < MIN_LENGTH) throw new Error(`${file} holds fewer than ${MIN_LENGTH} characters: restore it or set ENCRYPTION_SECRET`);
  return secret;
}

/**
 * Called once at boot, before anything reads a credential. Returns where the secret came from.
 */
export function initEncryptionSecret(source: EncryptionSecretSource, log: (line: string) => void): "env" | "file" | "generated" {
  if (source.ENCRYPTION_SECRET) {
    store[KEY] = deriveCredentialKey(source.ENCRYPTION_SECRET);
    return "env";
  }
  const file = source.keyFile;
  if (fs.existsSync(file)) {
    store[KEY] = deriveCredentialKey(readKeyFile(file));
    if (source.multiNode) log(`WARNING: credentials are encrypted with ${file}; every app node needs the same ENCRYPTION_SECRET`);
    return "file";
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString("base64url");
  try {
    // "wx": if another process created it meanwhile, use theirs rather than overwrite it.
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    store[KEY] = deriveCredentialKey(readKeyFile(file));
    return "file";
  }
  store[KEY] = deriveCredentialKey(secret);
  log(`generated ENCRYPTION_SECRET into ${file} (mode 0600): it encrypts stored credentials, back it up with the database.`);
  log("    Several app nodes need the same ENCRYPTION_SECRET: set it to this file's content on every node.");
  return "generated";
}

/** The key for credential-crypto.ts. Throws when the server did not initialise it. */
export function credentialKey(): Buffer {
  const key = store[KEY];
  if (key) return key;
  // A process that did not boot through server/index.ts (a script) may still set the variable.
  const fromEnv = process.env.ENCRYPTION_SECRET?.trim();
  if (fromEnv && fromEnv.length >= MIN_LENGTH) return (store[KEY] = deriveCredentialKey(fromEnv));
  throw new Error("the credential encryption key is not initialised (initEncryptionSecret was not called at boot)");
}
