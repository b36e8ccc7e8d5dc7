import { randomUUID } from "node:crypto";
import { getDb } from "./db";
import { formDefinitionSchema, type FormDefinition } from "../forms/definition";

export interface StoredForm {
  id: string;
  name: string;
  definition: FormDefinition;
  sourceDir: string;
}

function toStored(row: { id: string; name: string; definition: unknown; sourceDir: string }): StoredForm {
  // Definitions were validated on import; parsing again keeps the type honest if the schema grew defaults.
  return { id: row.id, name: row.name, definition: formDefinitionSchema.parse(row.definition), sourceDir: row.sourceDir };
}

export async function listForms(): Promise<StoredForm[]> {
  const rows = await getDb().form.findMany({ orderBy: { title: "asc" } });
  return rows.map(toStored);
}

export async function findForm(name: string): Promise<StoredForm | null> {
  const row = await getDb().form.findUnique({ where: { name } });
  return row ? toStored(row) : null;
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
