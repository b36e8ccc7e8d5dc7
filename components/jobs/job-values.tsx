"use client";

import { useState, type ReactNode } from "react";
import type { JobFileValue } from "@/components/api/types";
import { formatBytes } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";

/**
 * A value longer than this (characters or lines) is shown folded: its start, its length and a
 * button. A 200 KB text shown whole made the page 173,000 px tall.
 */
const FOLD_CHARS = 600;
const FOLD_LINES = 8;

const count = (n: number, one: string, many: string): string => `${n.toLocaleString("en-GB")} ${n === 1 ? one : many}`;

function lineCount(text: string): number {
  let lines = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}

/** The start of a long text: its first FOLD_LINES lines, at most FOLD_CHARS characters. */
function head(text: string): string {
  return text.slice(0, FOLD_CHARS).split("\n").slice(0, FOLD_LINES).join("\n");
}

/** A text that may be long: folded past FOLD_CHARS or FOLD_LINES, with its length and Show all / Fold. */
function LongText({ name, text }: { name: string; text: string }) {
  const [open, setOpen] = useState(false);
  const lines = lineCount(text);
  if (text.length <= FOLD_CHARS && lines <= FOLD_LINES) return <>{text}</>;
  const size = `${count(text.length, "character", "characters")}, ${count(lines, "line", "lines")}`;
  return (
    <div data-testid={`value-fold-${name}`}>
      {/* Unfolded it scrolls in its own box: the page keeps its height whatever the value's size. */}
      <div className={open ? "max-h-96 overflow-auto" : undefined}>{open ? text : `${head(text)}…`}</div>
      <div className="mt-1 flex flex-wrap items-center gap-2 font-sans text-[11px] text-zinc-500">
        <span>{size}</span>
        <button
          type="button"
          onClick={() => setOpen(!open)}
          aria-expanded={open}
          className="rounded border border-zinc-300 px-1.5 py-0.5 font-medium text-zinc-700 hover:bg-zinc-50"
        >
          {open ? "Fold" : "Show all"}
        </button>
      </div>
    </div>
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A cell of a table value: short, on one line; anything structured as JSON. */
function cell(value: unknown): ReactNode {
  if (value === null || value === undefined || value === "") return <span className="text-zinc-400">—</span>;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string" || typeof value === "number") return String(value);
  return JSON.stringify(value);
}

/** A table field's value (a list of rows): a table, its columns in the order the rows give them. */
function TableValue({ name, rows }: { name: string; rows: Record<string, unknown>[] }) {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return (
    <div className="overflow-x-auto" data-testid={`value-table-${name}`}>
      <table className="min-w-full border-collapse text-left">
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} className="border-b border-zinc-200 pr-3 pb-0.5 font-sans text-[11px] font-semibold text-zinc-500">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index} className="border-b border-zinc-100 last:border-0">
              {columns.map((column) => (
                <td key={column} className="max-w-[12rem] truncate py-0.5 pr-3 align-top" title={String(cell(row[column]))}>
                  {cell(row[column])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function show(name: string, value: unknown, file: JobFileValue | undefined): ReactNode {
  if (file) {
    return (
      <span data-testid={`value-file-${name}`} title="An uploaded file">
        {file.name} <span className="text-zinc-500">({formatBytes(file.size)})</span>
      </span>
    );
  }
  if (value === null || value === undefined || value === "") return <span className="text-zinc-400">empty</span>;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return <LongText name={name} text={value} />;
  if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) return <TableValue name={name} rows={value} />;
  return <LongText name={name} text={JSON.stringify(value, null, 2)} />;
}

const OPTION_LABELS: Record<string, string> = { check: "check mode", diff: "diff", limit: "limit", tags: "tags", verbosity: "verbosity" };

/**
 * The values the job was launched with (the server masks password fields), and the run
 * options chosen at launch, if any (check mode first: a dry run must be obvious). Long values
 * are folded, a table field's rows are a table, a file field shows the uploaded file's name
 * (`files`, by field: the value itself is the upload's id).
 */
export function JobValues({
  values,
  runOptions = {},
  files = {},
}: {
  values: Record<string, unknown>;
  runOptions?: Record<string, unknown>;
  files?: Record<string, JobFileValue>;
}) {
  const entries = Object.entries(values);
  const options = Object.entries(runOptions).filter(([, value]) => !(Array.isArray(value) && value.length === 0));
  return (
    <Panel title="Launch values" bodyClassName="p-0">
      {runOptions.check === true && (
        <p className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-xs font-medium text-amber-900" data-testid="check-mode">
          Check mode: a dry run, nothing was changed on the hosts.
        </p>
      )}
      {entries.length === 0 ? (
        <p className="px-4 py-3 text-sm text-zinc-500">Launched without values.</p>
      ) : (
        <dl className="divide-y divide-zinc-100 text-sm" data-testid="job-values">
          {entries.map(([name, value]) => (
            <div key={name} className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-4 px-4 py-2">
              <dt className="truncate font-mono text-xs text-zinc-500" title={name}>
                {name}
              </dt>
              <dd className="min-w-0 font-mono text-xs break-words whitespace-pre-wrap text-zinc-900">{show(name, value, files[name])}</dd>
            </div>
          ))}
        </dl>
      )}
      {options.length > 0 && (
        <dl className="divide-y divide-zinc-100 border-t border-zinc-200 text-sm" data-testid="job-run-options">
          {options.map(([name, value]) => (
            <div key={name} className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-4 px-4 py-2">
              <dt className="truncate text-xs text-zinc-500">{OPTION_LABELS[name] ?? name}</dt>
              <dd className="font-mono text-xs break-words text-zinc-900">
                {show(name, Array.isArray(value) ? value.join(", ") : value, undefined)}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </Panel>
  );
}
