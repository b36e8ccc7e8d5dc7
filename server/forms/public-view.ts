import type { FormDefinition } from "./definition";

/** What users see of a form: its fields, not its runner, inventories or options. */
export function publicForm(definition: FormDefinition) {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    playbook: definition.playbook,
    fields: definition.fields.map((field) => ({ ...field, label: field.label ?? field.name })),
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
