/**
 * The form definition: what an admin writes (form.yaml next to the playbook) to publish a
 * playbook as a browser form. Parsed with zod on import so a bad definition is rejected with
 * the path of the offending key, never half-imported.
 */
import { z } from "zod";
import { groupNameSchema } from "../access/group-name";
import { credentialNameSchema } from "../credentials/kinds";
import { checkFieldRules, fieldSchema, SOURCE_PLACEHOLDER, type FieldSpec } from "../form-rules/fields";
import { ENVIRONMENT_NAME } from "../protocol/rte-messages";
import { notifySchema } from "./notify";

const FORM_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const RUN_OPTION_NAMES = ["check", "diff", "limit", "tags", "verbosity"] as const;
export type RunOptionName = (typeof RUN_OPTION_NAMES)[number];
const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/") && !p.split(/[\\/]/).includes(".."), "must be a path inside the form folder");

export { fieldSchema };
export type FormField = FieldSpec;

export const formDefinitionSchema = z
  .object({
    name: z.string().regex(FORM_NAME, "must be lowercase letters, digits and dashes"),
    title: z.string().min(1),
    /** Markdown, shown above the form (no raw HTML). */
    description: z.string().default(""),
    /** Where the catalog lists the form; "Other" when absent. */
    category: z.string().trim().min(1).max(64).optional(),
    playbook: relativePath,
    inventories: z.array(relativePath).default([]),
    /** Runner name; the default runner when absent. */
    runner: z.string().optional(),
    /**
     * Runners the launcher chooses from (docs/forms.md, "Choosing a runner"): the first approved
     * one unless they pick another. Not with `runner:`.
     */
    runners: z
      .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, "must be a runner name (letters, digits, . _ -)"))
      .min(1, "must name at least one runner")
      .max(50, "at most 50 runners")
      .optional(),
    /**
     * The Ansible environment its jobs run in (docs/forms.md "Choosing an environment"): one a
     * runner offers in RTE_ENVIRONMENTS (docs/rte.md). Absent: `default`.
     */
    environment: z
      .string({ error: "must be an environment name (text)" })
      .regex(ENVIRONMENT_NAME, "must be an environment name: 1 to 32 of a-z 0-9 . _ - (starting with a letter or digit)")
      .optional(),
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
    /**
     * How the runner's sandbox (bubblewrap, docs/rte.md "The sandbox") runs the playbook.
     * `network: false`: no network but a loopback of its own, for playbooks that only act on
     * localhost; a runner without bubblewrap fails its jobs rather than run them with the network.
     */
    sandbox: z
      .object(
        {
          network: z
            .boolean({ error: "must be true or false (false: the playbook gets no network, only a loopback of its own)" })
            .default(true),
        },
        // Only for what is not a mapping: an unknown key keeps zod's message, which names it.
        { error: (issue) => (issue.code === "invalid_type" ? "must be a mapping, e.g. sandbox: {network: false}" : undefined) },
      )
      .strict()
      .optional(),
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
    /** Webhooks and emails on its jobs' events (server/forms/notify.ts, docs/forms.md "Notifications"). */
    notify: z.array(notifySchema).default([]),
  })
  .superRefine((form, ctx) => {
    if (form.runner !== undefined && form.runners !== undefined) {
      ctx.addIssue({ code: "custom", path: ["runners"], message: "give either runner: (one runner) or runners: (a choice), not both" });
    }
    form.runners?.forEach((name, index) => {
      if (form.runners!.indexOf(name) !== index) {
        ctx.addIssue({ code: "custom", path: ["runners", index], message: `runner "${name}" is named twice` });
      }
    });
    form.credentials.forEach((name, index) => {
      if (form.credentials.indexOf(name) !== index) {
        ctx.addIssue({ code: "custom", path: ["credentials", index], message: `credential "${name}" is named twice` });
      }
    });
    checkFieldRules(form.fields, (path, message) => ctx.addIssue({ code: "custom", path: ["fields", ...path], message }));
    form.fields.forEach((field, index) => {
      if (field.type === "hosts") {
        if (form.inventories.length === 0) {
          ctx.addIssue({
            code: "custom",
            path: ["fields", index],
            message: "a hosts field needs the form to have an inventory (inventories:)",
          });
        } else if (field.inventory !== undefined && !form.inventories.includes(field.inventory)) {
          ctx.addIssue({
            code: "custom",
            path: ["fields", index, "inventory"],
            message: `is not one of the form's inventories (${form.inventories.join(", ")})`,
          });
        }
      }
      if ((field.type === "select" || field.type === "multiselect") && field.source) {
        // A placeholder names another field whose value may travel in a URL (and the app's log),
        // after the host: a user's value must not choose the server the app (with its token) asks.
        const url = field.source.url;
        const pathStart = url.slice(url.indexOf("://") + 3).search(/[/?#]/);
        if (/\{/.test(pathStart === -1 ? url : url.slice(0, url.indexOf("://") + 3 + pathStart))) {
          ctx.addIssue({
            code: "custom",
            path: ["fields", index, "source", "url"],
            message: "placeholders may only be in the path or query, not the host",
          });
        }
        for (const [, name] of url.matchAll(SOURCE_PLACEHOLDER)) {
          const named = form.fields.find((f) => f.name === name);
          const problem =
            !named || named === field
              ? `names {${name}}, which is not another field of the form`
              : named.type === "password" || named.type === "file" || named.type === "table"
                ? `names {${name}}, a ${named.type} field, whose value cannot be put in a URL`
                : undefined;
          if (problem) ctx.addIssue({ code: "custom", path: ["fields", index, "source", "url"], message: problem });
        }
      }
      if ((field.type === "select" || field.type === "multiselect") && field.source?.credential !== undefined) {
        const name = credentialNameSchema.safeParse(field.source.credential);
        if (!name.success) {
          ctx.addIssue({
            code: "custom",
            path: ["fields", index, "source", "credential"],
            message: name.error.issues[0]?.message ?? "is not a credential name",
          });
        }
      }
    });
  });
export type FormDefinition = z.infer<typeof formDefinitionSchema>;

/**
 * A definition as import takes it (a forms folder, a Git source): the schema and what import
 * refuses on top. A password field's default would be sent to everyone who opens the form
 * (GET /api/forms/NAME): a secret known to every launcher is no secret. Not part of
 * formDefinitionSchema, which also reads what is stored (forms imported by an older version,
 * the snapshots of jobs) and must keep reading it; publicForm never sends such a default.
 */
export const importedFormSchema = formDefinitionSchema.superRefine((form, ctx) => {
  form.fields.forEach((field, index) => {
    if (field.type === "password" && field.default !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["fields", index, "default"],
        message:
          `form "${form.name}": password field "${field.name}" may not have a default: every user who opens the form ` +
          "would receive it. Remove the default; a value every run needs belongs in a secret credential (credentials:)",
      });
    }
  });
});

/** "fields.0.name: must be ..." — the path of every problem, for CLI and log messages. */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
}
