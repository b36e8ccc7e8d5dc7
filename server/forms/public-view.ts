import { sourcePlaceholders, type FieldOption, type FieldSpec } from "../form-rules/fields";
import { fillUserPlaceholders, type RuleField, type UserContext } from "../form-rules/values";
import type { FormDefinition } from "./definition";

/**
 * A field as the page gets it: its label always set; a choice source reduced to the fields its
 * URL names (the page re-fetches the choices when they change: POST /api/forms/NAME/choices/FIELD),
 * never its URL or credential; a hosts field's choices from the form's inventory.
 */
export type PublicField = RuleField & {
  label: string;
  source?: { dependsOn: string[] };
  /** hosts fields: the hosts or groups of the form's inventory. */
  choices?: FieldOption[];
  /** hosts fields: why there are no choices now (no runner connected to list the inventory, it does not parse). */
  choicesError?: string;
};

function publicField(
  field: FieldSpec,
  choices: Readonly<Record<string, FieldOption[]>>,
  user?: UserContext,
  problems: Readonly<Record<string, string>> = {},
): PublicField {
  const label = field.label ?? field.name;
  if ((field.type === "text" || field.type === "textarea") && field.default !== undefined && user) {
    return { ...field, label, default: fillUserPlaceholders(field.default, user) };
  }
  if (field.type === "password") {
    // Import refuses a password default (importedFormSchema); one stored by an older version
    // is never sent to the page.
    const { default: _secret, ...rest } = field;
    return { ...rest, label };
  }
  if ((field.type === "select" || field.type === "multiselect") && field.source) {
    const { source, ...rest } = field;
    return { ...rest, label, source: { dependsOn: sourcePlaceholders(source.url) } };
  }
  if (field.type === "hosts") {
    const problem = problems[field.name];
    return { ...field, label, choices: choices[field.name] ?? [], ...(problem !== undefined ? { choicesError: problem } : {}) };
  }
  return { ...field, label } as PublicField;
}

/**
 * What users see of a form: its fields, not its runner, inventories or options. `hostChoices`:
 * the hosts fields' choices, listed from the form's inventory by a runner (server/forms/host-choices.ts),
 * and `hostProblems` why a field has none; `user`: the reader, whose name and email fill the
 * defaults' `{user.name}` placeholders.
 */
export function publicForm(
  definition: FormDefinition,
  hostChoices: Readonly<Record<string, FieldOption[]>> = {},
  user?: UserContext,
  hostProblems: Readonly<Record<string, string>> = {},
) {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    category: definition.category ?? null,
    playbook: definition.playbook,
    fields: definition.fields.map((field) => publicField(field, hostChoices, user, hostProblems)),
    /** What a user may choose at launch, with the form's own settings as defaults. */
    launchOptions: definition.launchOptions,
    runDefaults: {
      check: definition.check,
      diff: definition.diff,
      limit: definition.limit ?? "",
      tags: definition.tags,
      verbosity: definition.verbosity,
    },
    requiresApproval: definition.requiresApproval,
  };
}
