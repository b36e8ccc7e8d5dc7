/**
 * The credentials a form names, opened for a job: checked at launch (checkFormCredentials,
 * so a bad form is refused before anything is stored) and again at dispatch
 * (resolveJobSecrets), because a credential may be deleted or replaced while a job waits.
 * Both go through loadFormCredentials, so they cannot disagree.
 */
import type { JobSecrets } from "../protocol/rte-messages";
import { findCredentialRows } from "../data/credentials";
import { decryptCredential } from "../security/credential-crypto";
import { credentialKey } from "../security/encryption-secret";
import { buildJobSecrets, credentialConflict, type NamedCredential } from "./bundle";
import { parseStoredPayload } from "./kinds";
import { loggerFor } from "../logging/logger";

const log = loggerFor({ component: "credentials" });

export class CredentialResolveError extends Error {}

async function loadFormCredentials(
  names: readonly string[],
): Promise<{ ok: true; credentials: NamedCredential[] } | { ok: false; message: string }> {
  const unique = [...new Set(names)];
  const rows = await findCredentialRows(unique);
  const missing = unique.filter((name) => !rows.some((row) => row.name === name));
  if (missing.length > 0) {
    const list = missing.map((name) => `"${name}"`).join(", ");
    const what = missing.length === 1 ? `credential ${list} does not exist` : `credentials ${list} do not exist`;
    return { ok: false, message: `the form's ${what}: an admin creates credentials on the Credentials page` };
  }
  const credentials: NamedCredential[] = [];
  for (const name of unique) {
    const row = rows.find((r) => r.name === name)!;
    try {
      credentials.push({ name, ...parseStoredPayload(row.kind, decryptCredential(credentialKey(), row.id, row.encrypted)) });
    } catch (error) {
      // Details (which check failed) go to the log; the job's reason names the credential.
      log().error({ err: error }, `cannot open credential "${name}"`);
      return { ok: false, message: `credential "${name}" cannot be opened (see the server log): was ENCRYPTION_SECRET changed?` };
    }
  }
  const conflict = credentialConflict(credentials);
  return conflict ? { ok: false, message: conflict } : { ok: true, credentials };
}

/**
 * Why a job of a form naming these credentials cannot run, or null when it can. The launch
 * answers 422 with this message.
 */
export async function checkFormCredentials(names: readonly string[]): Promise<string | null> {
  if (names.length === 0) return null;
  const loaded = await loadFormCredentials(names);
  return loaded.ok ? null : loaded.message;
}

/**
 * The bundle sealed for the job's runner: the form's password values (`passwordExtravars`,
 * hidden and masked) plus everything the named credentials hold. Throws CredentialResolveError
 * with a message fit for the job's status reason.
 */
export async function resolveJobSecrets(names: readonly string[], passwordExtravars: Record<string, unknown>): Promise<JobSecrets> {
  if (names.length === 0) return buildJobSecrets([], passwordExtravars);
  const loaded = await loadFormCredentials(names);
  if (!loaded.ok) throw new CredentialResolveError(loaded.message);
  return buildJobSecrets(loaded.credentials, passwordExtravars);
}

/**
 * The token a form's choice source sends (`Authorization: Bearer …`): a stored credential of
 * kind secret holding one variable, or a variable named `token`; else why not, in a message that
 * names the credential, never its value.
 */
export async function choiceSourceToken(name: string): Promise<{ ok: true; token: string } | { ok: false; message: string }> {
  const loaded = await loadFormCredentials([name]);
  if (!loaded.ok) return loaded;
  const credential = loaded.credentials[0]!;
  if (credential.kind !== "secret") {
    return { ok: false, message: `credential "${name}" is of kind ${credential.kind}: a choice source needs a secret credential` };
  }
  const variables = Object.entries(credential.payload.variables);
  const token = variables.length === 1 ? variables[0]![1] : credential.payload.variables.token;
  if (token === undefined) {
    return {
      ok: false,
      message: `credential "${name}" holds several variables and none named "token": the choice source cannot tell which to send`,
    };
  }
  return { ok: true, token };
}

/**
 * The key a form's webhook signs its body with: a stored credential of kind secret holding one
 * variable, or a variable named `secret`; else why not, naming the credential, never its value.
 */
export async function webhookSecret(name: string): Promise<{ ok: true; secret: string } | { ok: false; message: string }> {
  const loaded = await loadFormCredentials([name]);
  if (!loaded.ok) return loaded;
  const credential = loaded.credentials[0]!;
  if (credential.kind !== "secret") {
    return { ok: false, message: `credential "${name}" is of kind ${credential.kind}: a webhook needs a secret credential` };
  }
  const variables = Object.entries(credential.payload.variables);
  const secret = variables.length === 1 ? variables[0]![1] : credential.payload.variables.secret;
  if (secret === undefined) {
    return {
      ok: false,
      message: `credential "${name}" holds several variables and none named "secret": the webhook cannot tell which signs`,
    };
  }
  return { ok: true, secret };
}

/**
 * What a Git source (server/sources) authenticates with: a stored credential of kind ssh (its
 * private key: a deploy key) or secret (an https token: its one variable, or the one named
 * `token`); else why not, naming the credential, never its value.
 */
export async function gitSourceSecret(
  name: string,
): Promise<{ ok: true; kind: "ssh"; privateKey: string } | { ok: true; kind: "token"; token: string } | { ok: false; message: string }> {
  if ((await findCredentialRows([name])).length === 0) {
    return { ok: false, message: `credential "${name}" does not exist: an admin creates credentials on the Credentials page` };
  }
  const loaded = await loadFormCredentials([name]);
  if (!loaded.ok) return loaded;
  const credential = loaded.credentials[0]!;
  if (credential.kind === "ssh") return { ok: true, kind: "ssh", privateKey: credential.payload.privateKey };
  if (credential.kind !== "secret") {
    return {
      ok: false,
      message: `credential "${name}" is of kind ${credential.kind}: a source needs an ssh key or a secret (https token)`,
    };
  }
  const variables = Object.entries(credential.payload.variables);
  const token = variables.length === 1 ? variables[0]![1] : credential.payload.variables.token;
  if (token === undefined) return { ok: false, message: `credential "${name}" holds several variables and none named "token"` };
  return { ok: true, kind: "token", token };
}
