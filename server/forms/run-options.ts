/**
 * Run options chosen at launch ("prompt on launch"): check mode, diff, limit, tags and
 * verbosity, each only when the form lists it in `launchOptions`. They reach ansible-playbook
 * as separate argv entries (never through a shell); a value starting with "-" would still be
 * read as an option, so host patterns and tags are restricted to what Ansible accepts.
 */
import { z } from "zod";
import type { FormDefinition, RunOptionName } from "./definition";

const HOST_PATTERN = /^[A-Za-z0-9_.:&!*@~[\]][A-Za-z0-9_.:&!*@~[\],-]{0,499}$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

export const runOptionsSchema = z
  .object({
    check: z.boolean(),
    diff: z.boolean(),
    limit: z.string().trim().regex(HOST_PATTERN, "must be an Ansible host pattern (letters, digits, . _ - : & ! * , [ ])"),
    tags: z.array(z.string().trim().regex(TAG, "must be tag names (letters, digits, . _ -)")).max(50),
    verbosity: z.number().int().min(0).max(4),
  })
  .partial()
  .strict();
export type RunOptions = z.infer<typeof runOptionsSchema>;

export function validateRunOptions(
  form: FormDefinition,
  input: unknown,
): { ok: true; options: RunOptions } | { ok: false; errors: Record<string, string> } {
  if (input === undefined || input === null) return { ok: true, options: {} };
  const parsed = runOptionsSchema.safeParse(input);
  const errors: Record<string, string> = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.code === "unrecognized_keys" ? issue.keys.join(", ") : String(issue.path[0] ?? "");
      errors[`options.${key}`] ??= issue.code === "unrecognized_keys" ? "is not a run option" : issue.message;
    }
    return { ok: false, errors };
  }
  const allowed = new Set<RunOptionName>(form.launchOptions);
  for (const name of Object.keys(parsed.data) as RunOptionName[]) {
    if (!allowed.has(name)) errors[`options.${name}`] = "this form does not let you choose it at launch";
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, options: parsed.data };
}
