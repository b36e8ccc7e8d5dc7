/**
 * Server-side validation of submitted form values and the extravars built from them.
 * The browser's checks are a convenience; these are the ones that count.
 */
import { checkValues, type FieldErrors, type FormValues, type RuleContext } from "../form-rules/values";
import type { FormDefinition } from "./definition";

export type { FieldErrors, FieldValue, FormValues } from "../form-rules/values";

/**
 * Checks a launch's values with the form's rules (server/form-rules/values.ts, the same the
 * page runs). The context carries the current choices of `source` and `hosts` fields and the
 * launching user (for `{user.name}` defaults).
 */
export function validateValues(
  form: FormDefinition,
  input: Record<string, unknown>,
  context: RuleContext = {},
): { ok: true; values: FormValues } | { ok: false; errors: FieldErrors } {
  const checked = checkValues(form.fields, input, context);
  return checked.ok ? { ok: true, values: checked.values } : checked;
}

const JINJA_MARKERS = /\{\{|\{%|\{#/;

/**
 * Extravars for the playbook. A string with Jinja markers is wrapped as `{"__ansible_unsafe": s}`,
 * which ansible's JSON loader turns into an AnsibleUnsafeText: it reaches the playbook verbatim
 * and is never templated, so a user cannot make the playbook evaluate expressions.
 */
export function buildExtravars(form: FormDefinition, values: FormValues): Record<string, unknown> {
  const extravars: Record<string, unknown> = {};
  const unsafe = (value: unknown): unknown => {
    if (typeof value === "string") return !form.allowJinjaInExtravars && JINJA_MARKERS.test(value) ? { __ansible_unsafe: value } : value;
    if (Array.isArray(value)) return value.map(unsafe);
    if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unsafe(v)]));
    return value;
  };
  for (const [name, value] of Object.entries(values)) {
    if (value === null) continue;
    extravars[name] = unsafe(value);
  }
  return extravars;
}

/** Values as shown back to users: password fields never leave the server. */
export function redactValues(form: FormDefinition, values: FormValues): FormValues {
  const redacted: FormValues = { ...values };
  for (const field of form.fields) if (field.type === "password" && redacted[field.name] != null) redacted[field.name] = "********";
  return redacted;
}

/** The password values to mask in output (unwrapped when they were sent as unsafe strings). */
export function secretValues(form: FormDefinition, values: Record<string, unknown>): string[] {
  return form.fields.flatMap((f) => {
    if (f.type !== "password") return [];
    const value = values[f.name];
    if (typeof value === "string") return [value];
    if (typeof value === "object" && value !== null && "__ansible_unsafe" in value && typeof value.__ansible_unsafe === "string") {
      return [value.__ansible_unsafe];
    }
    return [];
  });
}

/** Extravars split into what may be written in the visible file and the password values. */
export function splitSecretExtravars(
  form: FormDefinition,
  extravars: Record<string, unknown>,
): { visible: Record<string, unknown>; hidden: Record<string, unknown> } {
  const secret = new Set(form.fields.filter((f) => f.type === "password").map((f) => f.name));
  const visible: Record<string, unknown> = {};
  const hidden: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(extravars)) (secret.has(name) ? hidden : visible)[name] = value;
  return { visible, hidden };
}
