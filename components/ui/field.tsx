import { useId, type InputHTMLAttributes, type ReactNode } from "react";
import { cx } from "./cx";

/** Shared look of text-like inputs; `invalid` switches to the red error state. */
export function inputClass(invalid: boolean, extra?: string): string {
  return cx(
    "block w-full rounded-md border bg-white px-3 py-1.5 text-sm text-zinc-900 shadow-xs placeholder:text-zinc-400",
    "focus:outline-none focus:ring-2 disabled:bg-zinc-50 disabled:text-zinc-500",
    invalid
      ? "border-red-500 focus:border-red-500 focus:ring-red-500/30"
      : "border-zinc-300 focus:border-indigo-500 focus:ring-indigo-500/30",
    extra,
  );
}

type Look = "compact" | "prominent" | "checkbox" | "option";

interface LookStyles {
  wrapper: string;
  label: string;
  control: (invalid: boolean) => string;
  help: string;
  error: string;
  /** Help text stays when there is an error (otherwise the error takes its place). */
  helpOnError: boolean;
}

const PROMINENT_TEXT = {
  label: "block text-sm font-medium text-zinc-800",
  help: "text-xs text-zinc-500",
  error: "text-xs font-medium text-red-600",
};

const LOOKS: Record<Look, LookStyles> = {
  /** Admin forms (credentials, users, account): a small grey label; an error replaces the help. */
  compact: {
    wrapper: "text-xs text-zinc-600",
    label: "block",
    control: (invalid) => inputClass(invalid, "mt-1"),
    help: "mt-1 text-zinc-500",
    error: "mt-1 text-red-700",
    helpOnError: false,
  },
  /** The launch form and the login: a bold label, help text under the input. */
  prominent: { ...PROMINENT_TEXT, wrapper: "space-y-1.5", control: (invalid) => inputClass(invalid), helpOnError: true },
  /** A checkbox of the launch form: the box, then its label and help beside it. */
  checkbox: {
    ...PROMINENT_TEXT,
    wrapper: "space-y-1",
    control: (invalid) =>
      cx("mt-0.5 size-4 rounded border-zinc-300 accent-indigo-600", invalid && "outline-2 outline-offset-1 outline-red-500"),
    helpOnError: true,
  },
  /** Secondary settings under a form (run options): a plain label in body text. */
  option: {
    wrapper: "text-sm text-zinc-800",
    label: "block",
    control: (invalid) => inputClass(invalid, "mt-1"),
    help: "mt-1 text-xs text-zinc-500",
    error: "mt-1 text-xs text-red-700",
    helpOnError: true,
  },
};

/** What the control of a Field must carry so the label, help and error are wired to it. */
export interface ControlProps {
  id: string;
  className: string;
  "aria-invalid"?: true;
  "aria-required"?: true;
  "aria-describedby"?: string;
}

export interface FieldProps {
  label: ReactNode;
  help?: ReactNode;
  /** The message under the control; the control turns red. */
  error?: string;
  /**
   * Marks the label with a red asterisk and the control with aria-required (the server checks;
   * a native `required` on a TextField's input is separate).
   */
  requiredMark?: boolean;
  look?: Look;
  /** The control's id; a generated one by default. */
  id?: string;
  /** Added to the wrapper (a width, say). */
  className?: string;
  /** Added to the control's classes. */
  controlClassName?: string;
  errorTestId?: string;
  "data-field"?: string;
}

/**
 * A label, one control, its help and its error message, wired together for screen readers
 * (htmlFor, aria-describedby, aria-invalid). `children` renders the control with the props it
 * is handed; TextField is the common case of a text input.
 */
export function Field({
  label,
  help,
  error,
  requiredMark,
  look = "compact",
  id: givenId,
  className,
  controlClassName,
  errorTestId,
  children,
  ...data
}: FieldProps & { children: (control: ControlProps) => ReactNode }) {
  const generatedId = useId();
  const id = givenId ?? generatedId;
  const styles = LOOKS[look];
  const invalid = Boolean(error);
  const showHelp = Boolean(help) && (styles.helpOnError || !invalid);
  const control: ControlProps = {
    id,
    className: cx(styles.control(invalid), controlClassName),
    "aria-invalid": invalid || undefined,
    "aria-required": requiredMark || undefined,
    "aria-describedby": cx(showHelp && `${id}-help`, invalid && `${id}-error`) || undefined,
  };
  const labelText = (
    <label htmlFor={id} className={styles.label}>
      {label}
      {requiredMark && (
        <span className="ml-0.5 text-red-600" aria-hidden="true" title="required">
          *
        </span>
      )}
    </label>
  );
  // A div: help may be Markdown with paragraphs and lists of its own.
  const helpText = showHelp && (
    <div id={`${id}-help`} className={styles.help}>
      {help}
    </div>
  );
  const errorText = invalid && (
    <p id={`${id}-error`} className={styles.error} data-testid={errorTestId}>
      {error}
    </p>
  );
  return (
    <div className={cx(styles.wrapper, className)} data-invalid={invalid || undefined} {...data}>
      {look === "checkbox" ? (
        <div className="flex items-start gap-2.5">
          {children(control)}
          <div className="space-y-0.5">
            {labelText}
            {helpText}
          </div>
        </div>
      ) : (
        <>
          {labelText}
          {children(control)}
        </>
      )}
      {errorText}
      {look !== "checkbox" && helpText}
    </div>
  );
}

export type TextFieldProps = FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "className"> & { "data-testid"?: string };

/** A labelled text input (any `type`: text, password, number …) with help and error. */
export function TextField({
  label,
  help,
  error,
  requiredMark,
  look,
  id,
  className,
  controlClassName,
  errorTestId,
  "data-field": dataField,
  ...input
}: TextFieldProps) {
  return (
    <Field {...{ label, help, error, requiredMark, look, id, className, controlClassName, errorTestId, "data-field": dataField }}>
      {(control) => <input {...input} {...control} />}
    </Field>
  );
}

/**
 * Text fields one after the other, from their props (`name` included): `bind` connects each
 * to the form's state by name (see useTextFields).
 */
export function TextFields<Name extends string>({
  fields,
  bind,
  look,
}: {
  fields: readonly (TextFieldProps & { name: Name })[];
  bind: (name: Name) => Pick<TextFieldProps, "value" | "onChange" | "error">;
  look?: Look;
}) {
  return (
    <>
      {fields.map((field) => (
        <TextField key={field.name} look={look} {...field} {...bind(field.name)} />
      ))}
    </>
  );
}
