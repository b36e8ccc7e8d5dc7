/**
 * Importing form definitions from a folder: one sub-folder per form with a `form.yaml`, the
 * playbook and its inventories. A bad form is reported with its file and the path of the
 * problem, and skipped; the others still import.
 */
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { describeZodError, importedFormSchema, type FormDefinition } from "./definition";

export interface LoadedForm {
  definition: FormDefinition;
  sourceDir: string;
}

export function loadFormFolder(dir: string): LoadedForm {
  const file = path.join(dir, "form.yaml");
  let raw: unknown;
  try {
    raw = parseYaml(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const parsed = importedFormSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${file}: ${describeZodError(parsed.error)}`);
  const definition = parsed.data;
  for (const rel of [definition.playbook, ...definition.inventories]) {
    if (!fs.existsSync(path.join(dir, rel))) throw new Error(`${file}: file ${rel} does not exist in ${dir}`);
  }
  return { definition, sourceDir: path.resolve(dir) };
}

export function loadFormsFrom(root: string): { forms: LoadedForm[]; errors: string[] } {
  const forms: LoadedForm[] = [];
  const errors: string[] = [];
  if (!fs.existsSync(root)) return { forms, errors: [`forms folder ${root} does not exist`] };
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || !fs.existsSync(path.join(root, entry.name, "form.yaml"))) continue;
    try {
      forms.push(loadFormFolder(path.join(root, entry.name)));
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { forms, errors };
}
