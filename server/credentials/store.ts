/**
 * Managing credentials (admins, through /api/credentials): create, replace the secret,
 * delete, list. Payloads are encrypted here, before they reach the database, and nothing
 * here ever returns one: the view is name, kind, description, dates and the forms using it.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { DomainError } from "../errors";
import { audited } from "../audit/record";
import {
  CredentialExistsError,
  deleteCredentialByName,
  findCredentialMeta,
  insertCredential,
  listCredentialMeta,
  updateCredential,
  type CredentialMeta,
} from "../data/credentials";
import { listForms } from "../forms/catalog";
import { encryptCredential } from "../security/credential-crypto";
import { credentialKey } from "../security/encryption-secret";
import { payloadOf, type CredentialKind, type createCredentialSchema, type replaceCredentialSchema } from "./kinds";

export interface CredentialView {
  name: string;
  kind: CredentialKind;
  description: string;
  createdAt: string;
  updatedAt: string;
  /** Forms whose `credentials:` name it; while any does, it cannot be deleted. */
  usedBy: string[];
}

type CreateInput = z.infer<typeof createCredentialSchema>;
type ReplaceInput = z.infer<typeof replaceCredentialSchema>;

async function formsUsing(): Promise<Map<string, string[]>> {
  const using = new Map<string, string[]>();
  for (const form of await listForms()) {
    for (const name of form.definition.credentials) using.set(name, [...(using.get(name) ?? []), form.name]);
  }
  return using;
}

function toView(meta: CredentialMeta, usedBy: string[]): CredentialView {
  return {
    name: meta.name,
    kind: meta.kind as CredentialKind,
    description: meta.description,
    createdAt: meta.createdAt.toISOString(),
    updatedAt: meta.updatedAt.toISOString(),
    usedBy,
  };
}

export async function listCredentialViews(): Promise<CredentialView[]> {
  const [rows, using] = await Promise.all([listCredentialMeta(), formsUsing()]);
  return rows.map((row) => toView(row, using.get(row.name) ?? []));
}

/** Recorded in the audit trail by `actor` (null: the app itself, at start-up): name and kind, never the secret. */
export async function createCredential(input: CreateInput, actor: string | null = null): Promise<CredentialView> {
  const audit = { actor, action: "credential.create", target: `credential:${input.name}`, details: { kind: input.kind } } as const;
  return audited(audit, () => insertNewCredential(input));
}

async function insertNewCredential(input: CreateInput): Promise<CredentialView> {
  const { kind, payload } = payloadOf(input);
  const id = randomUUID();
  try {
    const meta = await insertCredential({
      id,
      name: input.name,
      kind,
      description: input.description,
      encrypted: encryptCredential(credentialKey(), id, JSON.stringify(payload)),
    });
    return toView(meta, (await formsUsing()).get(meta.name) ?? []);
  } catch (error) {
    if (error instanceof CredentialExistsError) throw new DomainError("conflict", `${error.message}: replace its secret with PUT instead`);
    throw error;
  }
}

/** A new secret for an existing credential; its kind cannot change (forms rely on it). */
export async function replaceCredential(name: string, input: ReplaceInput, actor: string): Promise<CredentialView> {
  const audit = { actor, action: "credential.update", target: `credential:${name}`, details: { kind: input.kind } } as const;
  return audited(audit, () => replaceSecret(name, input));
}

async function replaceSecret(name: string, input: ReplaceInput): Promise<CredentialView> {
  const existing = await findCredentialMeta(name);
  if (!existing) throw new DomainError("not_found", `no credential named "${name}"`);
  if (existing.kind !== input.kind) {
    const message = `cannot change from ${existing.kind} to ${input.kind}: delete the credential and create a new one`;
    throw new DomainError("validation_failed", `kind: ${message}`, { kind: message });
  }
  const { payload } = payloadOf(input);
  const meta = await updateCredential(existing.id, {
    encrypted: encryptCredential(credentialKey(), existing.id, JSON.stringify(payload)),
    ...(input.description !== undefined ? { description: input.description } : {}),
  });
  if (!meta) throw new DomainError("not_found", `no credential named "${name}"`);
  return toView(meta, (await formsUsing()).get(name) ?? []);
}

export async function deleteCredential(name: string, actor: string): Promise<void> {
  await audited({ actor, action: "credential.delete", target: `credential:${name}` }, () => removeCredential(name));
}

async function removeCredential(name: string): Promise<void> {
  if (!(await findCredentialMeta(name))) throw new DomainError("not_found", `no credential named "${name}"`);
  const usedBy = (await formsUsing()).get(name) ?? [];
  if (usedBy.length > 0) {
    throw new DomainError(
      "conflict",
      `credential "${name}" is still named by form${usedBy.length > 1 ? "s" : ""} ${usedBy.join(", ")}: remove it from their credentials first`,
    );
  }
  await deleteCredentialByName(name);
}

/** True when a credential of that name exists (bootstrap). */
export async function credentialExists(name: string): Promise<boolean> {
  return (await findCredentialMeta(name)) !== null;
}
