/**
 * Importing form definitions from a folder: one sub-folder per form with a `form.yaml`, the
 * playbook and its inventories. A bad form is reported with its file and the path of the
 * problem, and skipped; the others still import.
 */
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { describeZodError, importedFormSchema, type FormDefinition } from "./definition";
import { readHostChoices, type HostChoices } from "./host-choices";

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

/**
 * The forms of a folder with their hosts fields' choices, read from their inventories
 * (server/forms/host-choices.ts). A form whose inventory ansible-inventory cannot read is
 * reported, naming the form and the inventory, and skipped like any other bad form.
 */
export async function loadFormsWithHostChoices(
  root: string,
): Promise<{ forms: (LoadedForm & { hostChoices: HostChoices })[]; errors: string[] }> {
  const { forms, errors } = loadFormsFrom(root);
  const loaded: (LoadedForm & { hostChoices: HostChoices })[] = [];
  for (const form of forms) {
    try {
      loaded.push({ ...form, hostChoices: await readHostChoices(form.definition, form.sourceDir) });
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { forms: loaded, errors };
}
