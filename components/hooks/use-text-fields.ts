import { useState, type ChangeEvent } from "react";

/**
 * The values of a form's text inputs in one state, and the props that bind an input to one
 * of them: `<TextField label="Name" {...bind("name")} />` (value, onChange and the server's
 * message for that field, if any). `reset` empties the form after a successful submit.
 */
export function useTextFields<Name extends string>(initial: Record<Name, string>, errors: Record<string, string | undefined> = {}) {
  const [values, setValues] = useState(initial);
  const bind = (name: Name) => ({
    value: values[name],
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      const { value } = event.target;
      setValues((current) => ({ ...current, [name]: value }));
    },
    error: errors[name],
  });
  return { values, bind, reset: () => setValues(initial) };
}
