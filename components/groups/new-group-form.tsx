"use client";

import type { FormEvent } from "react";
import { errorMessage, fieldErrors } from "@/components/api/client";
import { useGroupChange } from "@/components/hooks/use-groups";
import { useTextFields } from "@/components/hooks/use-text-fields";
import { Button } from "@/components/ui/button";
import { TextFields } from "@/components/ui/field";
import { Panel } from "@/components/ui/panel";

const NEW_GROUP_FIELDS = [
  { name: "name", label: "Name (as forms name it in access:)", autoComplete: "off", "data-testid": "new-group-name" },
  { name: "description", label: "Description (optional)", autoComplete: "off", "data-testid": "new-group-description" },
] as const;

/** Creates a group; the server's field messages appear under the fields they concern. */
export function NewGroupForm() {
  const change = useGroupChange();
  const fields = fieldErrors(change.error);
  const { values, bind, reset } = useTextFields({ name: "", description: "" }, fields);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ kind: "create", name: values.name.trim(), description: values.description.trim() }, { onSuccess: reset });
  };

  return (
    <Panel title="Add a group">
      <form className="grid gap-3 sm:grid-cols-[1fr_2fr_auto] sm:items-start" onSubmit={submit} noValidate>
        <TextFields fields={NEW_GROUP_FIELDS} bind={bind} />
        <Button type="submit" variant="primary" className="sm:mt-5" disabled={change.isPending} data-testid="new-group-submit">
          Add group
        </Button>
      </form>
      {change.isError && Object.keys(fields).length === 0 && <p className="mt-2 text-sm text-red-700">{errorMessage(change.error)}</p>}
    </Panel>
  );
}
