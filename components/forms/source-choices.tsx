import type { FieldOption, FormField, FormValue } from "@/components/api/types";
import { errorMessage } from "@/components/api/client";
import { useFieldChoices } from "@/components/hooks/use-field-choices";
import type { ReactNode } from "react";

export interface ChoicesStatus {
  loading: boolean;
  /** Why the choices could not be fetched (the server's message). */
  error?: string;
  /** What the user should do before there are choices. */
  note?: string;
}

/**
 * Fetches a source field's choices for the values it depends on and hands them, with the state
 * of the fetch, to its child: "Loading choices…", the source's error, or "Fill in X first".
 */
export function SourceChoices({
  form,
  field,
  values,
  children,
}: {
  form: string;
  field: FormField;
  values: Readonly<Record<string, FormValue>>;
  children: (choices: readonly FieldOption[], status: ChoicesStatus) => ReactNode;
}) {
  const dependsOn = field.source?.dependsOn ?? [];
  const choices = useFieldChoices(form, field.name, dependsOn, values);
  const status: ChoicesStatus = { loading: choices.isFetching && !choices.data };
  if (choices.missing.length > 0) status.note = `Fill in ${choices.missing.join(", ")} first.`;
  else if (choices.isError) status.error = `Could not load the choices: ${errorMessage(choices.error)}`;
  else if (choices.isFetching) status.note = "Loading choices…";
  return (
    <div data-choices-state={status.error ? "error" : status.loading ? "loading" : "ready"}>{children(choices.data ?? [], status)}</div>
  );
}
