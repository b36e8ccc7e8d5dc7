import type { FormField } from "@/components/api/types";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { initialRow, type DraftValue, type RowDraft } from "./form-values";

type TableField = Extract<FormField, { type: "table" }>;
type Column = TableField["columns"][number];

/**
 * A table field: one row of inputs per entry, a header of column labels, "Add row" up to
 * maxRows and a remove button per row. A cell's message (`accounts.1.user`) shows under it.
 */
export function TableControl({
  id,
  field,
  rows,
  errors,
  disabled,
  onChange,
}: {
  id: string;
  field: TableField;
  rows: readonly RowDraft[];
  errors: Readonly<Record<string, string>>;
  disabled?: boolean;
  onChange: (value: DraftValue) => void;
}) {
  const setCell = (index: number, column: string, value: string | boolean) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, [column]: value } : row)));
  const full = rows.length >= field.maxRows;
  return (
    <div id={id} tabIndex={-1} className="space-y-2" data-testid={`table-${field.name}`}>
      {rows.length > 0 && (
        <div className="overflow-x-auto rounded-md border border-zinc-200">
          <table className="w-full text-sm">
            <thead className="bg-zinc-50 text-left text-xs font-medium text-zinc-600">
              <tr>
                {field.columns.map((column) => (
                  <th key={column.name} scope="col" className="px-2 py-1.5">
                    {column.label ?? column.name}
                    {column.required && (
                      <span className="ml-0.5 text-red-600" aria-hidden="true">
                        *
                      </span>
                    )}
                  </th>
                ))}
                <th scope="col" className="w-0 px-2 py-1.5">
                  <span className="sr-only">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {rows.map((row, index) => (
                <tr key={index} data-row={index}>
                  {field.columns.map((column) => (
                    <td key={column.name} className="px-2 py-1.5 align-top">
                      <Cell
                        id={`${id}-${index}-${column.name}`}
                        label={`${column.label ?? column.name}, row ${index + 1}`}
                        column={column}
                        value={row[column.name]}
                        error={errors[`${field.name}.${index}.${column.name}`]}
                        disabled={disabled}
                        onChange={(value) => setCell(index, column.name, value)}
                      />
                    </td>
                  ))}
                  <td className="px-2 py-1.5 align-top">
                    <Button
                      size="sm"
                      variant="ghost"
                      disabled={disabled}
                      aria-label={`Remove row ${index + 1}`}
                      onClick={() => onChange(rows.filter((_, i) => i !== index))}
                    >
                      Remove
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="flex items-center gap-3">
        <Button size="sm" disabled={disabled || full} onClick={() => onChange([...rows, initialRow(field.columns)])}>
          Add row
        </Button>
        <span className="text-xs text-zinc-500">
          {rows.length} {rows.length === 1 ? "row" : "rows"}
          {field.minRows > 0 && `, at least ${field.minRows}`}
          {full ? `, the most allowed` : `, at most ${field.maxRows}`}
        </span>
      </div>
    </div>
  );
}

function Cell({
  id,
  label,
  column,
  value,
  error,
  disabled,
  onChange,
}: {
  id: string;
  label: string;
  column: Column;
  value: string | boolean | undefined;
  error?: string;
  disabled?: boolean;
  onChange: (value: string | boolean) => void;
}) {
  const text = typeof value === "string" ? value : "";
  const common = {
    id,
    "aria-label": label,
    "aria-invalid": error ? (true as const) : undefined,
    "aria-describedby": error ? `${id}-error` : undefined,
    disabled,
    className: inputClass(Boolean(error), "min-w-28"),
  };
  let control;
  switch (column.type) {
    case "checkbox":
      control = (
        <input
          {...common}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
          className="mt-2 size-4 accent-indigo-600"
        />
      );
      break;
    case "select":
      control = (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">{column.required ? "Select…" : "—"}</option>
          {column.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
      break;
    case "number":
      control = (
        // Text, as a form's number field (form-field.tsx): what is typed is what is checked.
        <input
          {...common}
          type="text"
          inputMode={column.integer ? "numeric" : "decimal"}
          autoComplete="off"
          spellCheck={false}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      );
      break;
    case "date":
      control = <input {...common} type="date" value={text} min={column.min} max={column.max} onChange={(e) => onChange(e.target.value)} />;
      break;
    default:
      control = <input {...common} type="text" spellCheck={false} value={text} onChange={(e) => onChange(e.target.value)} />;
  }
  return (
    <div data-cell={column.name}>
      {control}
      {error && (
        <p id={`${id}-error`} className="mt-0.5 text-xs font-medium text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}
