/**
 * From a job's opened credentials to the bundle the RTE receives (sealed): pure, so what is
 * hidden and what is masked is unit-tested without a database.
 */
import type { JobSecrets } from "../protocol/rte-messages";
import { privateKeyBodyLines, type CredentialPayload } from "./kinds";

export type NamedCredential = CredentialPayload & { name: string };

/** The variables the RTE sets from an ssh credential (it alone knows the key file's path). */
export const SSH_VARIABLES = ["ansible_user", "ansible_ssh_private_key_file"] as const;

/**
 * Why this set of credentials cannot go to one job, or null: more than one ssh or vault
 * credential (ansible has one login and Playform passes one vault password), or two
 * credentials setting the same variable (which one wins would be an accident of order).
 */
export function credentialConflict(credentials: readonly NamedCredential[]): string | null {
  for (const kind of ["ssh", "vault"] as const) {
    const named = credentials.filter((c) => c.kind === kind).map((c) => `"${c.name}"`);
    if (named.length > 1) return `a form may use at most one ${kind} credential, this one names ${named.join(" and ")}`;
  }
  const setBy = new Map<string, string>();
  for (const credential of credentials) {
    const variables =
      credential.kind === "secret" ? Object.keys(credential.payload.variables) : credential.kind === "ssh" ? [...SSH_VARIABLES] : [];
    for (const variable of variables) {
      const other = setBy.get(variable);
      if (other) return `credentials "${other}" and "${credential.name}" both set the variable ${variable}`;
      setBy.set(variable, credential.name);
    }
  }
  return null;
}

/** A value sent as `{"__ansible_unsafe": s}` (see forms/values.ts buildExtravars) is masked as s. */
function plainString(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && "__ansible_unsafe" in value && typeof value.__ansible_unsafe === "string") {
    return value.__ansible_unsafe;
  }
  return null;
}

/**
 * The job's secrets: the form's password values (`passwordExtravars`, kept hidden and masked
 * as before credentials existed), secret variables, the vault password and the ssh login.
 * Every secret value is masked, the private key whole and line by line: `cat key` prints
 * lines, and a line of base64 is as good as the key to whoever collects enough of them.
 */
export function buildJobSecrets(credentials: readonly NamedCredential[], passwordExtravars: Record<string, unknown>): JobSecrets {
  const hiddenExtravars: Record<string, unknown> = { ...passwordExtravars };
  const maskValues = Object.values(passwordExtravars).flatMap((v) => plainString(v) ?? []);
  let vaultPassword: string | null = null;
  let sshKey: JobSecrets["sshKey"] = null;
  for (const credential of credentials) {
    switch (credential.kind) {
      case "secret":
        for (const [name, value] of Object.entries(credential.payload.variables)) {
          hiddenExtravars[name] = value;
          maskValues.push(value);
        }
        break;
      case "vault":
        vaultPassword = credential.payload.password;
        maskValues.push(credential.payload.password);
        break;
      case "ssh":
        sshKey = { username: credential.payload.username, privateKey: credential.payload.privateKey };
        maskValues.push(credential.payload.privateKey, ...privateKeyBodyLines(credential.payload.privateKey));
        break;
    }
  }
  return { hiddenExtravars, vaultPassword, sshKey, maskValues: [...new Set(maskValues)] };
}
