/**
 * The forms as a signed-in user sees them: the catalog of those they may launch, and one form
 * with its defaults filled for them (server/forms/public-view.ts), and a source field's choices.
 */
import { launchableForms, requireLaunchableForm, type Viewer } from "../access/policy";
import { runnerStatesByName } from "../data/runners";
import { findUserByUsername } from "../data/users";
import { DomainError } from "../errors";
import type { FieldOption } from "../form-rules/fields";
import type { UserContext } from "../form-rules/values";
import { isSourceField, sourceChoices } from "./choice-source";
import { hostChoicesOf } from "./host-choices";
import { publicForm } from "./public-view";

/** The viewer as form defaults and rules name them (`{user.name}`, `{user.email}`). */
export async function userContext(viewer: Viewer): Promise<UserContext> {
  const profile = await findUserByUsername(viewer.username);
  return { username: viewer.username, name: profile?.displayName, email: profile?.email };
}

export async function catalogFor(viewer: Viewer): Promise<ReturnType<typeof publicForm>[]> {
  const [forms, user] = await Promise.all([launchableForms(viewer), userContext(viewer)]);
  // No inventory is listed for the catalog: a hosts field's choices come with the form itself.
  return forms.map((form) => publicForm(form.definition, {}, user));
}

/** One of the runners a form lets its launcher choose, with its state now. */
export interface RunnerChoice {
  name: string;
  /** approved (takes jobs), pending, rejected, revoked, or unknown (no runner of that name yet). */
  status: string;
  /** Whether an instance is connected now: a job for a runner that is away waits in the queue. */
  connected: boolean;
}

/**
 * A form the viewer may launch (404 for one they may not, as for one that does not exist), with
 * its hosts fields' choices as a runner lists its inventory (cached per form files; a hosts
 * field whose inventory cannot be listed now says why, `choicesError`), and the runners it lets
 * them choose from (`runners:` in form.yaml), or null when it offers none.
 */
export async function formFor(viewer: Viewer, name: string): Promise<ReturnType<typeof publicForm> & { runners: RunnerChoice[] | null }> {
  const [form, user] = await Promise.all([requireLaunchableForm(viewer, name), userContext(viewer)]);
  const hosts = await hostChoicesOf(form);
  const view = publicForm(form.definition, hosts.choices, user, hosts.problems);
  const names = form.definition.runners;
  if (names === undefined) return { ...view, runners: null };
  const states = await runnerStatesByName(names);
  const runners = names.map((runner) => {
    const state = states.get(runner);
    return { name: runner, status: state?.status ?? "unknown", connected: state?.connected ?? false };
  });
  return { ...view, runners };
}

/**
 * The current choices of a form's source field, fetched for the viewer with the form's values
 * as the page has them (server/forms/choice-source.ts). Only for those who may launch the form;
 * a field that is not a select or multiselect with a source answers 404.
 */
export async function choicesFor(
  viewer: Viewer,
  formName: string,
  fieldName: string,
  values: Record<string, unknown>,
): Promise<FieldOption[]> {
  const form = await requireLaunchableForm(viewer, formName);
  const field = form.definition.fields.find((f) => f.name === fieldName);
  if (!field || !isSourceField(field))
    throw new DomainError("not_found", `form "${formName}" has no field "${fieldName}" with a choice source`);
  return sourceChoices(form.definition, field, values);
}
