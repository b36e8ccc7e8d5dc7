/**
 * The form definition: what an admin writes (form.yaml next to the playbook) to publish a
 * playbook as a browser form. Parsed with zod on import so a bad definition is rejected with
 * the path of the offending key, never half-imported.
 */
import { z } from "zod";
import { groupNameSchema } from "../access/group-name";
import { credentialNameSchema } from "../credentials/kinds";

const FORM_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const RUN_OPTION_NAMES = ["check", "diff", "limit", "tags", "verbosity"] as const;
export type RunOptionName = (typeof RUN_OPTION_NAMES)[number];
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/") && !p.split(/[\\/]/).includes(".."), "must be a path inside the form folder");

const optionSchema = z.union([
  z.string().transform((value) => ({ value, label: value })),
  z.object({ value: z.string(), label: z.string().optional() }).transform((o) => ({ value: o.value, label: o.label ?? o.value })),
]);

const baseField = {
  name: z.string().regex(FIELD_NAME, "must be a valid Ansible variable name"),
  label: z.string().optional(),
  help: z.string().optional(),
  required: z.boolean().default(false),
};

export const fieldSchema = z.discriminatedUnion("type", [
  z.object({
    ...baseField,
    type: z.enum(["text", "textarea", "password"]),
    default: z.string().optional(),
    pattern: z.string().optional(),
    maxLength: z.number().int().positive().max(1_000_000).optional(),
  }),
  z.object({
    ...baseField,
    type: z.literal("number"),
    default: z.number().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    integer: z.boolean().default(false),
  }),
  z.object({ ...baseField, type: z.literal("checkbox"), default: z.boolean().optional() }),
  z.object({
    ...baseField,
    type: z.literal("select"),
    options: z.array(optionSchema).min(1),
    default: z.string().optional(),
  }),
]);
export type FormField = z.infer<typeof fieldSchema>;

export const formDefinitionSchema = z
  .object({
    name: z.string().regex(FORM_NAME, "must be lowercase letters, digits and dashes"),
    title: z.string().min(1),
    description: z.string().default(""),
    playbook: relativePath,
    inventories: z.array(relativePath).default([]),
    /** Runner name; the default runner when absent. */
    runner: z.string().optional(),
    fields: z.array(fieldSchema).default([]),
    tags: z.array(z.string()).default([]),
    skipTags: z.array(z.string()).default([]),
    limit: z.string().optional(),
    check: z.boolean().default(false),
    diff: z.boolean().default(false),
    verbosity: z.number().int().min(0).max(5).default(0),
    keepExtravars: z.boolean().default(false),
    /** Let values reach the playbook as templates. Off: `{{`, `{%`, `{#` are sent as unsafe strings. */
    allowJinjaInExtravars: z.boolean().default(false),
    /** Run options a user may choose at launch (the form's own values are the defaults). */
    launchOptions: z.array(z.enum(RUN_OPTION_NAMES)).default([]),
    /** Jobs wait in status `approval` until an admin approves them; until then they reach no runner. */
    requiresApproval: z.boolean().default(false),
    /**
     * Stored credentials the job gets (server/credentials): at most one ssh and one vault, any
     * number of secret ones. Checked when a job is launched, since credentials live in the
     * database and a form is imported from files.
     */
    credentials: z.array(credentialNameSchema).default([]),
    /**
     * Who may do what with this form, by group (server/access/policy.ts). `launch`: who sees and
     * launches it (absent: every signed-in user). `observe`: who reads all its jobs (besides
     * their launchers). `approve`: who approves its jobs, besides admins (and so reads them).
     * Admins may do everything. The groups need not exist yet: a group named here and created
     * later (or by single sign-on) takes effect then.
     */
    access: z
      .object({
        launch: z.array(groupNameSchema).optional(),
        observe: z.array(groupNameSchema).default([]),
        approve: z.array(groupNameSchema).default([]),
      })
      .strict()
      .default({ observe: [], approve: [] }),
  })
  .superRefine((form, ctx) => {
    form.credentials.forEach((name, index) => {
      if (form.credentials.indexOf(name) !== index) {
        ctx.addIssue({ code: "custom", path: ["credentials", index], message: `credential "${name}" is named twice` });
      }
    });
    const seen = new Set<string>();
    form.fields.forEach((field, index) => {
      if (seen.has(field.name)) {
        ctx.addIssue({ code: "custom", path: ["fields", index, "name"], message: `duplicate field name "${field.name}"` });
      }
      seen.add(field.name);
      if (field.type === "select" && field.default !== undefined && !field.options.some((o) => o.value === field.default)) {
        ctx.addIssue({ code: "custom", path: ["fields", index, "default"], message: "default is not one of the options" });
      }
      if ((field.type === "text" || field.type === "textarea" || field.type === "password") && field.pattern) {
        try {
          new RegExp(field.pattern);
        } catch {
          ctx.addIssue({ code: "custom", path: ["fields", index, "pattern"], message: "is not a valid regular expression" });
        }
      }
    });
  });
export type FormDefinition = z.infer<typeof formDefinitionSchema>;

/** "fields.0.name: must be ..." — the path of every problem, for CLI and log messages. */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
}
