"use client";

import type { RunDefaults, RunOptionName, RunOptions } from "@/components/api/types";
import { inputClass } from "./field-styles";

/** What the user has set in the run options section, as the inputs hold it. */
export interface RunOptionsDraft {
  check: boolean;
  diff: boolean;
  limit: string;
  tags: string;
  verbosity: number;
}

export function initialRunOptions(defaults: RunDefaults): RunOptionsDraft {
  return { ...defaults, tags: defaults.tags.join(", ") };
}

/** Only the options the form lets users choose are sent; the server checks them again. */
export function draftToRunOptions(allowed: RunOptionName[], draft: RunOptionsDraft): RunOptions {
  const options: RunOptions = {};
  for (const name of allowed) {
    if (name === "tags")
      options.tags = draft.tags
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
    else if (name === "limit") {
      if (draft.limit.trim()) options.limit = draft.limit.trim();
    } else if (name === "verbosity") options.verbosity = draft.verbosity;
    else options[name] = draft[name];
  }
  return options;
}

const LABELS: Record<RunOptionName, string> = {
  check: "Check mode (dry run: report what would change, change nothing)",
  diff: "Show differences (--diff)",
  limit: "Limit to hosts",
  tags: "Only tasks tagged",
  verbosity: "Verbosity",
};

/** The "prompt on launch" section: one input per option the form allows. */
export function RunOptionsFields({
  allowed,
  draft,
  errors,
  disabled,
  onChange,
}: {
  allowed: RunOptionName[];
  draft: RunOptionsDraft;
  errors: Record<string, string>;
  disabled: boolean;
  onChange: (draft: RunOptionsDraft) => void;
}) {
  if (allowed.length === 0) return null;
  const error = (name: RunOptionName) => errors[`options.${name}`];
  return (
    <fieldset className="mt-6 space-y-3 border-t border-zinc-200 pt-4" data-testid="run-options">
      <h3 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">Run options</h3>
      {allowed.includes("check") && (
        <label className="flex items-center gap-2 text-sm text-zinc-800">
          <input
            type="checkbox"
            checked={draft.check}
            disabled={disabled}
            onChange={(e) => onChange({ ...draft, check: e.target.checked })}
          />
          {LABELS.check}
        </label>
      )}
      {allowed.includes("diff") && (
        <label className="flex items-center gap-2 text-sm text-zinc-800">
          <input
            type="checkbox"
            checked={draft.diff}
            disabled={disabled}
            onChange={(e) => onChange({ ...draft, diff: e.target.checked })}
          />
          {LABELS.diff}
        </label>
      )}
      {allowed.includes("limit") && (
        <label className="block text-sm text-zinc-800">
          {LABELS.limit}
          <input
            className={inputClass(Boolean(error("limit")), "mt-1 font-mono")}
            value={draft.limit}
            placeholder="all hosts of the inventory (e.g. web:&prod)"
            disabled={disabled}
            onChange={(e) => onChange({ ...draft, limit: e.target.value })}
            data-testid="run-option-limit"
          />
          {error("limit") && <span className="mt-1 block text-xs text-red-700">{error("limit")}</span>}
        </label>
      )}
      {allowed.includes("tags") && (
        <label className="block text-sm text-zinc-800">
          {LABELS.tags}
          <input
            className={inputClass(Boolean(error("tags")), "mt-1 font-mono")}
            value={draft.tags}
            placeholder="every task (comma-separated tags)"
            disabled={disabled}
            onChange={(e) => onChange({ ...draft, tags: e.target.value })}
          />
          {error("tags") && <span className="mt-1 block text-xs text-red-700">{error("tags")}</span>}
        </label>
      )}
      {allowed.includes("verbosity") && (
        <label className="block w-48 text-sm text-zinc-800">
          {LABELS.verbosity}
          <select
            className={inputClass(false, "mt-1")}
            value={draft.verbosity}
            disabled={disabled}
            onChange={(e) => onChange({ ...draft, verbosity: Number(e.target.value) })}
          >
            {[0, 1, 2, 3, 4].map((level) => (
              <option key={level} value={level}>
                {level === 0 ? "normal" : `-${"v".repeat(level)}`}
              </option>
            ))}
          </select>
        </label>
      )}
    </fieldset>
  );
}
