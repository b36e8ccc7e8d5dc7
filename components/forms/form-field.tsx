import type { FormField as Field } from "@/components/api/types";
import { Field as LabelledField, type ControlProps } from "@/components/ui/field";

import type { DraftValue } from "./form-values";

type OnChange = (value: DraftValue) => void;

/**
 * One form field, rendered by type, with its label, required marker, help text and the
 * server's error message. Ids are derived from the field name so label, help and error are
 * wired to the input for screen readers (and for tests).
 */
export function FormField({
  field,
  value,
  error,
  disabled,
  onChange,
}: {
  field: Field;
  value: DraftValue;
  error?: string;
  disabled?: boolean;
  onChange: OnChange;
}) {
  return (
    <LabelledField
      id={`field-${field.name}`}
      look={field.type === "checkbox" ? "checkbox" : "prominent"}
      label={field.label}
      help={field.help}
      error={error}
      requiredMark={field.required}
      errorTestId={`field-error-${field.name}`}
      data-field={field.name}
    >
      {(control) => renderControl(field, value, { ...control, name: field.name, disabled }, onChange)}
    </LabelledField>
  );
}

function renderControl(field: Field, value: DraftValue, props: ControlProps & { name: string; disabled?: boolean }, onChange: OnChange) {
  const text = typeof value === "string" ? value : "";
  const { className, ...common } = props;
  switch (field.type) {
    case "checkbox":
      return <input {...props} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
    case "textarea":
      return (
        <textarea
          {...common}
          rows={4}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          className={`${className} font-mono text-[13px]`}
        />
      );
    case "select":
      return (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)} className={`${className} pr-8`}>
          {/* An explicit empty choice: otherwise the browser silently picks the first option. */}
          <option value="">{field.required ? "Select…" : "—"}</option>
          {(field.options ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    case "number":
      return (
        <input
          {...common}
          type="number"
          inputMode={field.integer ? "numeric" : "decimal"}
          value={text}
          min={field.min}
          max={field.max}
          step={field.integer ? 1 : "any"}
          onChange={(e) => onChange(e.target.value)}
          className={`${className} max-w-48 tabular-nums`}
        />
      );
    case "text":
    case "password":
      return (
        <input
          {...props}
          type={field.type === "password" ? "password" : "text"}
          autoComplete={field.type === "password" ? "new-password" : undefined}
          spellCheck={field.type === "password" ? undefined : false}
          value={text}
          maxLength={field.maxLength}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    default:
      return <p className="text-sm text-zinc-500">Not supported yet.</p>;
  }
}
