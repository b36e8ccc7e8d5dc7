"use client";

import { useRouter } from "next/navigation";
import { useRef, useState, type FormEvent } from "react";
import { ApiError, errorMessage } from "@/components/api/client";
import type { FormDetail } from "@/components/api/types";
import { useStartPreview } from "@/components/hooks/use-form-preview";
import { useLaunchJob } from "@/components/hooks/use-launch-job";
import { ScheduleButton } from "@/components/schedules/schedule-dialog";
import { Button } from "@/components/ui/button";
import { relaunchValues } from "./draft-from-job";
import { FormField } from "./form-field";
import { PreviewPanel, toggleTag } from "./preview-panel";
import { RunnerSelect, firstApprovedRunner } from "./runner-select";
import { draftToRunOptions, initialRunOptions, RunOptionsFields, type RunOptionsDraft } from "./run-options";
import { initialDraft, readDraft, type DraftValue, type DraftValues } from "./form-values";
import { checkValues } from "@/server/form-rules/values";

/** The field a message is about: `accounts` for `accounts.0.user`. */
const fieldOf = (path: string) => path.split(".")[0]!;

/**
 * The launch form. The page checks the values with the form's own rules before sending
 * (server/form-rules, the code the API runs), so a problem shows at once with the server's
 * message; the server checks again, and a 422's `fields` are shown the same way (a choice from
 * an HTTP source, say, is only checked there). Everything typed stays in place. The browser's
 * constraint validation is off (noValidate): one message, in one place, for every rule.
 * Fields whose `visibleWhen` does not hold are not shown, checked or sent.
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
  const startPreview = useStartPreview(form.name);
  const [previewId, setPreviewId] = useState<number | null>(null);
  const [runner, setRunner] = useState<string | null>(() => firstApprovedRunner(form.runners));
  // The launch being sent, if any: a second click before the button shows disabled (a double
  // click) sends nothing, and a request sent again (a retry) carries the same Idempotency-Key,
  // so the server answers the first job instead of starting another. A new attempt, a new key.
  const sending = useRef<string | null>(null);

  const { visible, values } = readDraft(form.fields, draft);

  const setValue = (name: string, value: DraftValue) => {
    setDraft((current) => ({ ...current, [name]: value }));
    // The messages described the old value (a table's: its cells); keep them until it changes.
    setFieldErrors((current) => {
      const kept = Object.entries(current).filter(([path]) => fieldOf(path) !== name);
      return kept.length === Object.keys(current).length ? current : Object.fromEntries(kept);
    });
  };

  const focusFirst = (errors: Record<string, string>) => {
    const first = form.fields.find((f) => Object.keys(errors).some((path) => fieldOf(path) === f.name));
    if (first) document.getElementById(`field-${first.name}`)?.focus();
  };

  // A launch's or a preview's refusal: a 422 marks the fields it names.
  const showError = (error: Error) => {
    if (error instanceof ApiError && error.status === 422) {
      const known = new Set([...form.fields.map((f) => f.name), ...form.launchOptions.map((o) => `options.${o}`), "runner"]);
      const isKnown = (path: string) => known.has(path) || known.has(fieldOf(path));
      const errors = Object.fromEntries(Object.entries(error.fields).filter(([path]) => isKnown(path)));
      const unknown = Object.entries(error.fields).filter(([path]) => !isKnown(path));
      setFieldErrors(errors);
      setFormError(
        unknown.length > 0
          ? unknown.map(([name, message]) => `${name}: ${message}`).join("; ")
          : Object.keys(errors).length > 0
            ? "Some values need attention. Check the highlighted fields."
            : error.message,
      );
      focusFirst(errors);
    } else {
      setFieldErrors({});
      setFormError(errorMessage(error));
    }
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFormError(null);
    if (sending.current !== null || !checkDraft()) return;
    const idempotencyKey = crypto.randomUUID();
    sending.current = idempotencyKey;
    launch.mutate(
      {
        form: form.name,
        values: relaunchOf === undefined ? values : relaunchValues(form.fields, values),
        options: draftToRunOptions(form.launchOptions, runDraft),
        relaunchOf,
        ...(form.runners !== null && runner !== null ? { runner } : {}),
        idempotencyKey,
      },
      {
        onSuccess: ({ id }) => router.push(`/jobs/${id}`),
        onError: (error) => {
          sending.current = null;
          showError(error);
        },
      },
    );
  };

  /** The form's own rules first, as for a launch: a preview of values the API refuses is no use. */
  const checkDraft = (): boolean => {
    const hostChoices = Object.fromEntries(form.fields.flatMap((f) => (f.type === "hosts" ? [[f.name, f.choices ?? []]] : [])));
    const checked = checkValues(form.fields, values, { choices: hostChoices });
    if (checked.ok) return true;
    setFieldErrors(checked.errors);
    setFormError("Some values need attention. Check the highlighted fields.");
    focusFirst(checked.errors);
    return false;
  };

  const onPreview = () => {
    setFormError(null);
    if (!checkDraft()) return;
    startPreview.mutate(
      { values, options: draftToRunOptions(form.launchOptions, runDraft) },
      { onSuccess: ({ id }) => setPreviewId(id), onError: showError },
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
          {form.fields
            .filter((field) => visible.has(field.name))
            .map((field) => (
              <FormField
                key={field.name}
                form={form.name}
                field={field}
                value={draft[field.name] ?? ""}
                errors={fieldErrors}
                values={values}
                disabled={submitting}
                onChange={(value) => setValue(field.name, value)}
              />
            ))}
        </div>
      )}
      {form.runners !== null && (
        <RunnerSelect runners={form.runners} value={runner} onChange={setRunner} error={fieldErrors.runner} disabled={submitting} />
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
        <Button disabled={submitting || startPreview.isPending} onClick={onPreview} data-testid="preview-button">
          {startPreview.isPending ? "Starting preview…" : "Preview"}
        </Button>
        <ScheduleButton form={form.name} values={values} options={draftToRunOptions(form.launchOptions, runDraft)} />
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
      {previewId !== null && (
        <PreviewPanel
          form={form.name}
          id={previewId}
          tags={form.launchOptions.includes("tags") ? runDraft.tags : null}
          onToggleTag={(tag) => setRunDraft((current) => ({ ...current, tags: toggleTag(current.tags, tag) }))}
          onClose={() => setPreviewId(null)}
        />
      )}
    </form>
  );
}
