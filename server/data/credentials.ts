/**
 * Stored credentials. Rows hold the payload only encrypted (server/credentials/store.ts
 * encrypts before it calls these); the listing never even selects the encrypted column.
 */
import { getDb } from "./db";
import { isUniqueViolation } from "./unique";

export interface CredentialMeta {
  id: string;
  name: string;
  kind: string;
  description: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface CredentialRow extends CredentialMeta {
  encrypted: string;
}

const META = { id: true, name: true, kind: true, description: true, createdAt: true, updatedAt: true } as const;

export class CredentialExistsError extends Error {}

export async function listCredentialMeta(): Promise<CredentialMeta[]> {
  return getDb().credential.findMany({ select: META, orderBy: { name: "asc" } });
}

export async function findCredentialMeta(name: string): Promise<CredentialMeta | null> {
  return getDb().credential.findUnique({ where: { name }, select: META });
}

export async function findCredentialRows(names: readonly string[]): Promise<CredentialRow[]> {
  if (names.length === 0) return [];
  return getDb().credential.findMany({ where: { name: { in: [...names] } } });
}

export async function insertCredential(row: Omit<CredentialRow, "createdAt" | "updatedAt">): Promise<CredentialMeta> {
  try {
    return await getDb().credential.create({ data: row, select: META });
  } catch (error) {
    if (isUniqueViolation(error)) throw new CredentialExistsError(`a credential named "${row.name}" already exists`);
    throw error;
  }
}

/** Replaces the encrypted payload (and the description when given); null when there is no such credential. */
export async function updateCredential(id: string, data: { encrypted: string; description?: string }): Promise<CredentialMeta | null> {
  const updated = await getDb().credential.updateMany({ where: { id }, data });
  if (updated.count === 0) return null;
  return getDb().credential.findUnique({ where: { id }, select: META });
}

export async function deleteCredentialByName(name: string): Promise<boolean> {
  const deleted = await getDb().credential.deleteMany({ where: { name } });
  return deleted.count > 0;
}

