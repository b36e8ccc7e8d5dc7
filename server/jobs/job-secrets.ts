/**
 * A job's password values at rest. The form's password fields reach the playbook as hidden
 * extravars; between launch and dispatch (approval, queue) they must be stored somewhere, and
 * the job row keeps them only encrypted, the way credentials are (server/security/
 * credential-crypto.ts: AES-256-GCM, key from ENCRYPTION_SECRET), with `job:<id>:extravars` as
 * additional data so a value copied onto another job's row does not open. The lifecycle erases
 * them as soon as the job runs or ends: nothing needs them afterwards, and the job's view only
 * ever shows "********".
 */
import { findUnfinishedJobExtravars, replaceJobExtravars } from "../data/jobs";
import { formDefinitionSchema } from "../forms/definition";
import { splitSecretExtravars } from "../forms/values";
import { decryptCredential, encryptCredential } from "../security/credential-crypto";
import { credentialKey } from "../security/encryption-secret";

const additionalData = (jobId: number) => `job:${jobId}:extravars`;

/** The sealed form of a job's password extravars, for its `secretExtravars` column. */
export function sealJobSecrets(jobId: number, secrets: Record<string, unknown>): string {
  return encryptCredential(credentialKey(), additionalData(jobId), JSON.stringify(secrets));
}

/** Opens what sealJobSecrets sealed; throws when the key or the row is not the one it was sealed with. */
export function openJobSecrets(jobId: number, sealed: string): Record<string, unknown> {
  return JSON.parse(decryptCredential(credentialKey(), additionalData(jobId), sealed)) as Record<string, unknown>;
}

/**
 * Jobs launched before password values were kept apart hold them in plain extravars. Those that
 * ended lost them in the migration (20261130190343_job_secret_extravars); the others are
 * handled here, at start: a job that may still be dispatched gets them sealed, a running one
 * needs them no more. Returns how many jobs changed.
 */
export async function sealLegacyPasswordValues(): Promise<number> {
  let changed = 0;
  for (const job of await findUnfinishedJobExtravars()) {
    const form = formDefinitionSchema.safeParse(job.formDefinition);
    if (!form.success) continue;
    const { visible, hidden } = splitSecretExtravars(form.data, job.extravars);
    if (Object.keys(hidden).length === 0) continue;
    const sealed = job.status === "running" ? null : sealJobSecrets(job.id, { ...hidden, ...openIfAny(job.id, job.secretExtravars) });
    if (await replaceJobExtravars(job.id, job.status, visible, sealed)) changed++;
  }
  return changed;
}

function openIfAny(jobId: number, sealed: string | null): Record<string, unknown> {
  return sealed ? openJobSecrets(jobId, sealed) : {};
}
