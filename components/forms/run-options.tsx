"use client";

import type { RunDefaults, RunOptionName, RunOptions } from "@/components/api/types";
import { Field, TextField } from "@/components/ui/field";

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

const SWITCHES = ["check", "diff"] as const;

/** Text options: what an empty input means, and a test id where the tests need one. */
const TEXTS: { name: "limit" | "tags"; placeholder: string; testId?: string }[] = [
  { name: "limit", placeholder: "all hosts of the inventory (e.g. web:&prod)", testId: "run-option-limit" },
  { name: "tags", placeholder: "every task (comma-separated tags)" },
];

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
  return (
    <fieldset className="mt-6 space-y-3 border-t border-zinc-200 pt-4" data-testid="run-options">
      <h3 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">Run options</h3>
      {SWITCHES.filter((name) => allowed.includes(name)).map((name) => (
        <label key={name} className="flex items-center gap-2 text-sm text-zinc-800">
          <input
            type="checkbox"
            checked={draft[name]}
            disabled={disabled}
            onChange={(e) => onChange({ ...draft, [name]: e.target.checked })}
          />
          {LABELS[name]}
        </label>
      ))}
      {TEXTS.filter(({ name }) => allowed.includes(name)).map(({ name, placeholder, testId }) => (
        <TextField
          key={name}
          look="option"
          label={LABELS[name]}
          error={errors[`options.${name}`]}
          controlClassName="font-mono"
          value={draft[name]}
          placeholder={placeholder}
          disabled={disabled}
          onChange={(e) => onChange({ ...draft, [name]: e.target.value })}
          data-testid={testId}
        />
      ))}
      {allowed.includes("verbosity") && (
        <Field look="option" label={LABELS.verbosity} className="w-48">
          {(control) => (
            <select
              {...control}
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
          )}
        </Field>
      )}
    </fieldset>
  );
}
