import { randomUUID } from "node:crypto";
import { getDb } from "./db";
import type { FormDefinition } from "../forms/definition";

/**
 * A form as stored. The definition stays unparsed here: turning it back into a FormDefinition
 * is the forms domain's job (server/forms/catalog.ts), and storage does not call up into it.
 */
export interface FormRecord {
  id: string;
  name: string;
  definition: unknown;
  sourceDir: string;
}

const recordSelect = { id: true, name: true, definition: true, sourceDir: true } as const;

export async function listFormRecords(): Promise<FormRecord[]> {
  return getDb().form.findMany({ orderBy: { title: "asc" }, select: recordSelect });
}

export async function findFormRecord(name: string): Promise<FormRecord | null> {
  return getDb().form.findUnique({ where: { name }, select: recordSelect });
}

export async function upsertForm(definition: FormDefinition, sourceDir: string): Promise<void> {
  const data = {
    title: definition.title,
    description: definition.description,
    definition: definition as object,
    sourceDir,
  };
  await getDb().form.upsert({
    where: { name: definition.name },
    create: { id: randomUUID(), name: definition.name, ...data },
    update: data,
  });
}
