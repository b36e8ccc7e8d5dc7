"use client";

import { useState, type FormEvent } from "react";
import { errorMessage, fieldErrors } from "@/components/api/client";
import type { Role } from "@/components/api/types";
import { useTextFields } from "@/components/hooks/use-text-fields";
import { useUserChange } from "@/components/hooks/use-users";
import { Button } from "@/components/ui/button";
import { Field, TextFields } from "@/components/ui/field";
import { Panel } from "@/components/ui/panel";

const NEW_USER_FIELDS = [
  { name: "username", label: "Username", autoComplete: "off", "data-testid": "new-user-name" },
  {
    name: "password",
    label: "Initial password (10+ characters)",
    type: "password",
    autoComplete: "new-password",
    "data-testid": "new-user-password",
  },
] as const;

/** Creates an account; the server's field messages appear under the fields they concern. */
export function NewUserForm() {
  const change = useUserChange();
  const fields = fieldErrors(change.error);
  const { values, bind, reset } = useTextFields({ username: "", password: "" }, fields);
  const [role, setRole] = useState<Role>("user");

  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate(
      { kind: "create", username: values.username.trim(), password: values.password, role },
      { onSuccess: () => (reset(), setRole("user")) },
    );
  };

  return (
    <Panel title="Add a user">
      <form className="grid gap-3 sm:grid-cols-[1fr_1fr_auto_auto] sm:items-start" onSubmit={submit} noValidate>
        <TextFields fields={NEW_USER_FIELDS} bind={bind} />
        <Field label="Role">
          {(control) => (
            <select {...control} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              <option value="user">user</option>
              <option value="admin">admin</option>
            </select>
          )}
        </Field>
        <Button type="submit" variant="primary" className="sm:mt-5" disabled={change.isPending} data-testid="new-user-submit">
          {change.isPending ? "Adding…" : "Add user"}
        </Button>
      </form>
      {change.isError && Object.keys(fields).length === 0 && (
        <p className="mt-2 text-sm text-red-700" data-testid="new-user-error">
          {errorMessage(change.error)}
        </p>
      )}
    </Panel>
  );
}
