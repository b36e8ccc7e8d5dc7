"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { ApiError, errorMessage } from "@/components/api/client";
import type { FormDetail } from "@/components/api/types";
import { useLaunchJob } from "@/components/hooks/use-launch-job";
import { Button } from "@/components/ui/button";
import { relaunchValues } from "./draft-from-job";
import { FormField } from "./form-field";
import { draftToRunOptions, initialRunOptions, RunOptionsFields, type RunOptionsDraft } from "./run-options";
import { draftToValues, initialDraft, type DraftValues } from "./form-values";

/**
 * The launch form. Validation is the server's: a 422 comes back with `fields`, each named
 * field is marked with its message and everything typed stays in place. The browser's own
 * constraint validation is off (noValidate) so that the server's message is the one shown,
 * in the same place, for every rule.
 */
export function LaunchForm({
  form,
  initial,
  relaunchOf,
}: {
  form: FormDetail;
  /** The draft to start from (Run again: components/forms/draft-from-job.ts); Reset returns to it. */
  initial?: { draft: DraftValues; runDraft: RunOptionsDraft };
  /** Run again: the job launched from here repeats job `relaunchOf` (POST /api/jobs/ID/relaunch). */
  relaunchOf?: number;
}) {
  const router = useRouter();
  const launch = useLaunchJob();
  const [draft, setDraft] = useState<DraftValues>(() => initial?.draft ?? initialDraft(form.fields));
  const [runDraft, setRunDraft] = useState<RunOptionsDraft>(() => initial?.runDraft ?? initialRunOptions(form.runDefaults));
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);

  const setValue = (name: string, value: string | boolean) => {
    setDraft((current) => ({ ...current, [name]: value }));
    // The message described the old value; keep it until the user changes the field.
    if (fieldErrors[name] !== undefined) {
      setFieldErrors(({ [name]: _dropped, ...rest }) => rest);
    }
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFormError(null);
    const values = draftToValues(form.fields, draft);
    launch.mutate(
      {
        form: form.name,
        values: relaunchOf === undefined ? values : relaunchValues(form.fields, values),
        options: draftToRunOptions(form.launchOptions, runDraft),
        relaunchOf,
      },
      {
        onSuccess: ({ id }) => router.push(`/jobs/${id}`),
        onError: (error) => {
          if (error instanceof ApiError && error.status === 422) {
            const known = new Set([...form.fields.map((f) => f.name), ...form.launchOptions.map((o) => `options.${o}`)]);
            const errors = Object.fromEntries(Object.entries(error.fields).filter(([name]) => known.has(name)));
            const unknown = Object.entries(error.fields).filter(([name]) => !known.has(name));
            setFieldErrors(errors);
            setFormError(
              unknown.length > 0
                ? unknown.map(([name, message]) => `${name}: ${message}`).join("; ")
                : Object.keys(errors).length > 0
                  ? "Some values need attention. Check the highlighted fields."
                  : error.message,
            );
            const first = form.fields.find((f) => errors[f.name] !== undefined);
            if (first) document.getElementById(`field-${first.name}`)?.focus();
          } else {
            setFieldErrors({});
            setFormError(errorMessage(error));
          }
        },
      },
    );
  };

  const submitting = launch.isPending || launch.isSuccess;

  return (
    <form method="post" onSubmit={onSubmit} noValidate aria-label={form.title} data-testid="launch-form">
      {formError && (
        <div
          role="alert"
          className="mb-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800"
          data-testid="form-error"
        >
          {formError}
        </div>
      )}
      {form.fields.length === 0 ? (
        <p className="text-sm text-zinc-500">This form has no fields: launching runs the playbook as is.</p>
      ) : (
        <div className="space-y-5">
          {form.fields.map((field) => (
            <FormField
              key={field.name}
              field={field}
              value={draft[field.name] ?? ""}
              error={fieldErrors[field.name]}
              disabled={submitting}
              onChange={(value) => setValue(field.name, value)}
            />
          ))}
        </div>
      )}
      <RunOptionsFields
        allowed={form.launchOptions}
        draft={runDraft}
        errors={fieldErrors}
        disabled={submitting}
        onChange={(next) => {
          setRunDraft(next);
          setFieldErrors((current) => Object.fromEntries(Object.entries(current).filter(([key]) => !key.startsWith("options."))));
        }}
      />
      <div className="mt-6 flex items-center gap-3 border-t border-zinc-200 pt-4">
        <Button type="submit" variant="primary" disabled={submitting}>
          {submitting ? "Launching…" : "Launch"}
        </Button>
        {/* Nothing to reset or mark on a form without fields or run options. */}
        {(form.fields.length > 0 || form.launchOptions.length > 0) && (
          <Button
            variant="ghost"
            disabled={submitting}
            onClick={() => {
              setDraft(initial?.draft ?? initialDraft(form.fields));
              setRunDraft(initial?.runDraft ?? initialRunOptions(form.runDefaults));
              setFieldErrors({});
              setFormError(null);
            }}
          >
            Reset
          </Button>
        )}
        {form.fields.some((field) => field.required) && (
          <span className="ml-auto text-xs text-zinc-500" data-testid="required-legend">
            <span className="text-red-600">*</span> required
          </span>
        )}
      </div>
    </form>
  );
}
