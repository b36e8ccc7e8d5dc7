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
  /** Choices of its hosts fields, read from its inventory at import (server/forms/host-choices.ts). */
  hostChoices: unknown;
  sourceDir: string;
  /** The Git source it was imported from and its commit (server/sources); null for the forms folder. */
  sourceName: string | null;
  sourceCommit: string | null;
}

/**
 * The hosts fields' choices are stored inside the definition's JSON under this key, not in a
 * column of their own: they are read with the definition, always replaced with it, and no
 * migration is needed. A definition cannot hold the key itself: form.yaml is parsed with the
 * definition schema, which drops keys it does not know.
 */
const HOST_CHOICES_KEY = "_hostChoices";

const recordSelect = { id: true, name: true, definition: true, sourceDir: true, sourceName: true, sourceCommit: true } as const;

function toRecord(row: Omit<FormRecord, "hostChoices">): FormRecord {
  if (typeof row.definition !== "object" || row.definition === null || !(HOST_CHOICES_KEY in row.definition)) {
    return { ...row, hostChoices: {} };
  }
  const { [HOST_CHOICES_KEY]: hostChoices, ...definition } = row.definition as Record<string, unknown>;
  return { ...row, definition, hostChoices };
}

export async function listFormRecords(): Promise<FormRecord[]> {
  return (await getDb().form.findMany({ orderBy: { title: "asc" }, select: recordSelect })).map(toRecord);
}

export async function findFormRecord(name: string): Promise<FormRecord | null> {
  const row = await getDb().form.findUnique({ where: { name }, select: recordSelect });
  return row ? toRecord(row) : null;
}

export async function upsertForm(
  definition: FormDefinition,
  sourceDir: string,
  hostChoices: object = {},
  origin: { sourceName: string; sourceCommit: string } | null = null,
): Promise<void> {
  const data = {
    title: definition.title,
    description: definition.description,
    definition: { ...definition, [HOST_CHOICES_KEY]: hostChoices } as object,
    sourceDir,
    sourceName: origin?.sourceName ?? null,
    sourceCommit: origin?.sourceCommit ?? null,
  };
  await getDb().form.upsert({
    where: { name: definition.name },
    create: { id: randomUUID(), name: definition.name, ...data },
    update: data,
  });
}
