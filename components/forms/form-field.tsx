import type { FormField as Field } from "@/components/api/types";
import { cx } from "@/components/ui/cx";
import { inputClass } from "./field-styles";

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
  value: string | boolean;
  error?: string;
  disabled?: boolean;
  onChange: (value: string | boolean) => void;
}) {
  const id = `field-${field.name}`;
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const invalid = error !== undefined;
  const describedBy = cx(field.help && helpId, invalid && errorId) || undefined;
  const common = {
    id,
    name: field.name,
    disabled,
    "aria-invalid": invalid || undefined,
    "aria-required": field.required || undefined,
    "aria-describedby": describedBy,
  };

  const label = (
    <label htmlFor={id} className="block text-sm font-medium text-zinc-800">
      {field.label}
      {field.required && (
        <span className="ml-0.5 text-red-600" aria-hidden="true" title="required">
          *
        </span>
      )}
    </label>
  );

  const help = field.help && (
    <p id={helpId} className="text-xs text-zinc-500">
      {field.help}
    </p>
  );

  const errorText = invalid && (
    <p id={errorId} className="text-xs font-medium text-red-600" data-testid={`field-error-${field.name}`}>
      {error}
    </p>
  );

  if (field.type === "checkbox") {
    return (
      <div className="space-y-1" data-field={field.name} data-invalid={invalid || undefined}>
        <div className="flex items-start gap-2.5">
          <input
            {...common}
            type="checkbox"
            checked={value === true}
            onChange={(e) => onChange(e.target.checked)}
            className={cx(
              "mt-0.5 size-4 rounded border-zinc-300 accent-indigo-600",
              invalid && "outline-2 outline-offset-1 outline-red-500",
            )}
          />
          <div className="space-y-0.5">
            {label}
            {help}
          </div>
        </div>
        {errorText}
      </div>
    );
  }

  const text = typeof value === "string" ? value : "";
  let control;
  switch (field.type) {
    case "textarea":
      control = (
        <textarea
          {...common}
          rows={4}
          value={text}
          maxLength={field.maxLength}
          onChange={(e) => onChange(e.target.value)}
          className={inputClass(invalid, "font-mono text-[13px]")}
        />
      );
      break;
    case "select":
      control = (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)} className={inputClass(invalid, "pr-8")}>
          {/* An explicit empty choice: otherwise the browser silently picks the first option. */}
          <option value="">{field.required ? "Select…" : "—"}</option>
          {(field.options ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
      break;
    case "number":
      control = (
        <input
          {...common}
          type="number"
          inputMode={field.integer ? "numeric" : "decimal"}
          value={text}
          min={field.min}
          max={field.max}
          step={field.integer ? 1 : "any"}
          onChange={(e) => onChange(e.target.value)}
          className={inputClass(invalid, "max-w-48 tabular-nums")}
        />
      );
      break;
    case "password":
      control = (
        <input
          {...common}
          type="password"
          autoComplete="new-password"
          value={text}
          maxLength={field.maxLength}
          onChange={(e) => onChange(e.target.value)}
          className={inputClass(invalid)}
        />
      );
      break;
    default:
      control = (
        <input
          {...common}
          type="text"
          value={text}
          maxLength={field.maxLength}
          spellCheck={false}
          onChange={(e) => onChange(e.target.value)}
          className={inputClass(invalid)}
        />
      );
  }

  return (
    <div className="space-y-1.5" data-field={field.name} data-invalid={invalid || undefined}>
      {label}
      {control}
      {errorText}
      {help}
    </div>
  );
}
