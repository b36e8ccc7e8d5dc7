/**
 * The forms as a signed-in user sees them: the catalog of those they may launch, and one form
 * with its defaults filled for them (server/forms/public-view.ts).
 */
import { launchableForms, requireLaunchableForm, type Viewer } from "../access/policy";
import { findUserByUsername } from "../data/users";
import type { UserContext } from "../form-rules/values";
import { publicForm } from "./public-view";

async function userContext(viewer: Viewer): Promise<UserContext> {
  const profile = await findUserByUsername(viewer.username);
  return { username: viewer.username, name: profile?.displayName, email: profile?.email };
}

export async function catalogFor(viewer: Viewer): Promise<ReturnType<typeof publicForm>[]> {
  const [forms, user] = await Promise.all([launchableForms(viewer), userContext(viewer)]);
  return forms.map((form) => publicForm(form.definition, {}, user));
}

/** A form the viewer may launch (404 for one they may not, as for one that does not exist). */
export async function formFor(viewer: Viewer, name: string): Promise<ReturnType<typeof publicForm>> {
  const [form, user] = await Promise.all([requireLaunchableForm(viewer, name), userContext(viewer)]);
  return publicForm(form.definition, {}, user);
}
