import type { FieldOption, FormField as Field, FormValue } from "@/components/api/types";
import { Field as LabelledField, type ControlProps } from "@/components/ui/field";
import { Markdown } from "@/components/ui/markdown";
import { choicesOf } from "@/server/form-rules/values";
import { FileControl } from "./file-field";
import type { DraftValue, RowDraft, UploadDraft } from "./form-values";
import { SourceChoices } from "./source-choices";
import { TableControl } from "./table-field";

type OnChange = (value: DraftValue) => void;

export interface FormFieldProps {
  form: string;
  field: Field;
  value: DraftValue;
  /** Every message of the form, by path: this field's, and its cells' (`accounts.0.user`). */
  errors: Readonly<Record<string, string>>;
  /** The values typed so far, for choices that depend on other fields. */
  values: Readonly<Record<string, FormValue>>;
  disabled?: boolean;
  onChange: OnChange;
}

/**
 * One form field, rendered by type, with its label, required marker, help (Markdown) and the
 * message of the rule it breaks. Ids derive from the field name so label, help and error are
 * wired to the input for screen readers (and for tests).
 */
export function FormField({ form, field, value, errors, values, disabled, onChange }: FormFieldProps) {
  if (field.source && (field.type === "select" || field.type === "multiselect")) {
    return (
      <SourceChoices form={form} field={field} values={values}>
        {(choices, status) => (
          <Labelled field={field} error={errors[field.name] ?? status.error} note={status.note}>
            {(control) =>
              renderControl(field, value, { ...control, name: field.name, disabled: disabled || status.loading }, onChange, choices)
            }
          </Labelled>
        )}
      </SourceChoices>
    );
  }
  if (field.type === "table") {
    return (
      <Labelled field={field} error={errors[field.name]}>
        {(control) => (
          <TableControl
            id={control.id}
            field={field}
            rows={Array.isArray(value) ? (value as RowDraft[]) : []}
            errors={errors}
            disabled={disabled}
            onChange={onChange}
          />
        )}
      </Labelled>
    );
  }
  const choices = field.type === "hosts" ? field.choices : choicesOf(field, values);
  const dependsOn = (field.type === "select" || field.type === "multiselect") && field.optionsFrom ? field.optionsFrom.field : undefined;
  const note =
    field.type === "hosts" && field.choicesError
      ? `The hosts cannot be listed now: ${field.choicesError}`
      : dependsOn !== undefined && (choices ?? []).length === 0
        ? `Choose ${dependsOn} first.`
        : undefined;
  return (
    <Labelled field={field} error={errors[field.name]} note={note}>
      {(control) =>
        field.type === "file" ? (
          <FileControl
            form={form}
            field={field}
            control={control}
            value={value && typeof value === "object" && !Array.isArray(value) ? (value as UploadDraft) : null}
            disabled={disabled}
            onChange={onChange}
          />
        ) : (
          renderControl(field, value, { ...control, name: field.name, disabled }, onChange, choices)
        )
      }
    </Labelled>
  );
}

function Labelled({
  field,
  error,
  note,
  children,
}: {
  field: Field;
  error?: string;
  note?: string;
  children: (control: ControlProps) => React.ReactNode;
}) {
  const help =
    field.help || note ? (
      <>
        {note && <span className="block text-zinc-600">{note}</span>}
        {field.help && <Markdown>{field.help}</Markdown>}
      </>
    ) : undefined;
  return (
    <LabelledField
      id={`field-${field.name}`}
      look={field.type === "checkbox" ? "checkbox" : "prominent"}
      label={field.label}
      help={help}
      error={error}
      requiredMark={field.required}
      errorTestId={`field-error-${field.name}`}
      data-field={field.name}
    >
      {children}
    </LabelledField>
  );
}

/** "12 / 500": shown under text inputs with a limit; past it, red with the rule's message. */
function Counter({ length, max }: { length: number; max: number }) {
  const over = length > max;
  return (
    <span
      className={`mt-1 block text-right text-xs tabular-nums ${over ? "font-medium text-red-600" : "text-zinc-400"}`}
      data-testid="length-counter"
      aria-live={over ? "polite" : undefined}
    >
      {length.toLocaleString()} / {max.toLocaleString()}
      {over && ` (at most ${max} characters)`}
    </span>
  );
}

function renderControl(
  field: Field,
  value: DraftValue,
  props: ControlProps & { name: string; disabled?: boolean },
  onChange: OnChange,
  choices: readonly FieldOption[] | undefined,
) {
  const text = typeof value === "string" ? value : "";
  const list = Array.isArray(value) ? (value as string[]) : [];
  const { className, ...common } = props;
  switch (field.type) {
    case "checkbox":
      return <input {...props} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
    case "textarea":
      // No maxLength attribute: the browser would cut a long paste without a word. The counter
      // and the rule's message say what is wrong instead.
      return (
        <>
          <textarea
            {...common}
            rows={4}
            value={text}
            placeholder={field.placeholder}
            onChange={(e) => onChange(e.target.value)}
            className={`${className} font-mono text-[13px]`}
          />
          {field.maxLength !== undefined && <Counter length={text.length} max={field.maxLength} />}
        </>
      );
    case "select":
      return (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)} className={`${className} pr-8`}>
          {/* An explicit empty choice: otherwise the browser silently picks the first option. */}
          <option value="">{field.required ? "Select…" : "—"}</option>
          {(choices ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
          {/* A value no longer among the choices (they changed) stays visible until changed. */}
          {text !== "" && choices && !choices.some((o) => o.value === text) && <option value={text}>{text}</option>}
        </select>
      );
    case "multiselect":
      return <ChoiceList props={props} choices={choices ?? []} selected={list} onChange={onChange} />;
    case "hosts":
      if (field.multiple) return <ChoiceList props={props} choices={choices ?? []} selected={list} onChange={onChange} />;
      return (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)} className={`${className} pr-8 font-mono`}>
          <option value="">{field.required ? "Select…" : "—"}</option>
          {(choices ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    case "number":
      // Text, not type="number": a number input hands the page "" for what it cannot read
      // ("12e", a paste of "12abc" it cut to 12), so the value the user sees is not the one
      // launched. As text, what is typed is what is sent, and the server's "must be a number"
      // marks the field (the keyboard still offers digits: inputMode).
      return (
        <input
          {...common}
          type="text"
          inputMode={field.integer ? "numeric" : "decimal"}
          autoComplete="off"
          spellCheck={false}
          value={text}
          placeholder={field.placeholder}
          onChange={(e) => onChange(e.target.value)}
          className={`${className} max-w-48 tabular-nums`}
        />
      );
    case "date":
    case "datetime":
      return (
        <input
          {...common}
          type={field.type === "date" ? "date" : "datetime-local"}
          value={text}
          min={field.min}
          max={field.max}
          step={field.type === "datetime" ? 1 : undefined}
          onChange={(e) => onChange(e.target.value)}
          className={`${className} max-w-64 tabular-nums`}
        />
      );
    case "text":
    case "password":
      return (
        <>
          <input
            {...props}
            type={field.type === "password" ? "password" : "text"}
            autoComplete={field.type === "password" ? "new-password" : undefined}
            spellCheck={field.type === "password" ? undefined : false}
            value={text}
            placeholder={field.placeholder}
            onChange={(e) => onChange(e.target.value)}
          />
          {field.maxLength !== undefined && field.type === "text" && <Counter length={text.length} max={field.maxLength} />}
        </>
      );
    case "table":
    case "file":
      // Rendered by their own controls (FormField).
      return null;
  }
}

/**
 * Several choices: a list of checkboxes, scrollable past a dozen. The group carries the field's
 * id so the label and the error message point at it.
 */
function ChoiceList({
  props,
  choices,
  selected,
  onChange,
}: {
  props: ControlProps & { name: string; disabled?: boolean };
  choices: readonly FieldOption[];
  selected: readonly string[];
  onChange: OnChange;
}) {
  // A value chosen before the choices changed (another field's value did) stays listed, ticked
  // and marked, so it can be unticked: the rules refuse it until then.
  const stale = selected.filter((value) => !choices.some((o) => o.value === value));
  const shown = [...choices, ...stale.map((value) => ({ value, label: `${value} (no longer a choice)` }))];
  const toggle = (value: string, on: boolean) => {
    const next = on ? [...selected, value] : selected.filter((v) => v !== value);
    // Keep the choices' order, whatever the order of the clicks.
    onChange(shown.map((o) => o.value).filter((v) => next.includes(v)));
  };
  return (
    <div
      id={props.id}
      role="group"
      aria-invalid={props["aria-invalid"]}
      aria-describedby={props["aria-describedby"]}
      tabIndex={-1}
      className={`max-h-56 overflow-y-auto rounded-md border px-3 py-2 ${props["aria-invalid"] ? "border-red-500" : "border-zinc-300"}`}
      data-testid={`choices-${props.name}`}
    >
      {shown.length === 0 ? (
        <p className="text-sm text-zinc-500">No choices.</p>
      ) : (
        <ul className="grid grid-cols-1 gap-1 sm:grid-cols-2">
          {shown.map((option) => (
            <li key={option.value}>
              <label className="flex items-center gap-2 text-sm text-zinc-800">
                <input
                  type="checkbox"
                  name={props.name}
                  value={option.value}
                  checked={selected.includes(option.value)}
                  disabled={props.disabled}
                  onChange={(e) => toggle(option.value, e.target.checked)}
                  className="size-4 rounded border-zinc-300 accent-indigo-600"
                />
                {option.label}
              </label>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
