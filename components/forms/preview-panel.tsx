"use client";

import Link from "next/link";
import { usePreviewPlan, type PlanPlay, type PreviewPlan } from "@/components/hooks/use-form-preview";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { hasTemplatedNames } from "@/server/recap/plan";
import { ErrorState, Spinner } from "@/components/ui/states";

/** The comma-separated tags of the run options with `tag` added, or taken out when it was there. */
export function toggleTag(tags: string, tag: string): string {
  const chosen = tags
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const next = chosen.includes(tag) ? chosen.filter((t) => t !== tag) : [...chosen, tag];
  return next.join(", ");
}

function chosenTags(tags: string): Set<string> {
  return new Set(
    tags
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
  );
}

/** Where a preview is while there is no plan yet, in the words of the form page. */
function waitingLabel(plan: PreviewPlan | undefined): string {
  if (!plan || plan.status === "queued" || plan.status === "approval") return "Waiting for runner…";
  return "Listing tasks…";
}

/**
 * What a launch would run, without running it: the plan of preview job `id` (the form's
 * runner lists it with `ansible-playbook --list-tasks --list-tags`). When the form lets users
 * choose tags, the tags found are offered as choices for that option (`tags`, `onToggleTag`).
 */
export function PreviewPanel({
  form,
  id,
  tags,
  onToggleTag,
  onClose,
}: {
  form: string;
  id: number;
  /** The run options' tags as typed (comma-separated), when the form offers that option; else null. */
  tags: string | null;
  onToggleTag: (tag: string) => void;
  onClose: () => void;
}) {
  const query = usePreviewPlan(form, id);
  const plan = query.data;
  return (
    <section className="mt-6 rounded-lg border border-zinc-200 bg-zinc-50 p-4" aria-label="Preview" data-testid="preview-panel">
      <header className="mb-3 flex items-center gap-3">
        <h3 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">Preview: what Launch would run</h3>
        <Link href={`/jobs/${id}`} className="ml-auto text-xs text-indigo-700 hover:underline">
          Output of preview #{id}
        </Link>
        <Button size="sm" variant="ghost" onClick={onClose}>
          Close
        </Button>
      </header>
      {query.error ? (
        <ErrorState error={query.error} onRetry={() => void query.refetch()} />
      ) : !plan?.done ? (
        <p className="flex items-center gap-2 text-sm text-zinc-600" role="status" data-testid="preview-waiting">
          <Spinner /> {waitingLabel(plan)}
        </p>
      ) : (
        <PlanView plan={plan} tags={tags} onToggleTag={onToggleTag} />
      )}
    </section>
  );
}

function PlanView({ plan, tags, onToggleTag }: { plan: PreviewPlan; tags: string | null; onToggleTag: (tag: string) => void }) {
  const chosen = chosenTags(tags ?? "");
  return (
    <div className="space-y-4">
      {plan.error && (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800" data-testid="preview-error">
          <p className="font-medium">The plan could not be listed.</p>
          <pre className="mt-1 overflow-x-auto font-mono text-xs whitespace-pre-wrap">{plan.error}</pre>
        </div>
      )}
      {plan.plays.length === 0 && !plan.error && <p className="text-sm text-zinc-600">No play would run.</p>}
      {hasTemplatedNames(plan.plays) && (
        <p className="text-xs text-zinc-500" data-testid="preview-templated-note">
          Names are shown as written in the playbook: the parts in <code className="font-mono">{"{{ }}"}</code> are filled in when the job
          runs (loop items, facts, values).
        </p>
      )}
      {plan.plays.map((play) => (
        <PlayView key={play.number} play={play} />
      ))}
      {plan.tags.length > 0 && (
        <div data-testid="preview-tags">
          <p className="mb-1.5 text-xs text-zinc-500">
            {tags === null ? "Tags in this playbook:" : "Tags in this playbook: choose any to run only the tasks tagged with them."}
          </p>
          <div className="flex flex-wrap gap-1.5">
            {plan.tags.map((tag) =>
              tags === null ? (
                <span key={tag} className="rounded-full bg-zinc-200 px-2 py-0.5 font-mono text-xs text-zinc-700">
                  {tag}
                </span>
              ) : (
                <button
                  key={tag}
                  type="button"
                  aria-pressed={chosen.has(tag)}
                  onClick={() => onToggleTag(tag)}
                  className={cx(
                    "rounded-full px-2 py-0.5 font-mono text-xs ring-1 ring-inset",
                    chosen.has(tag) ? "bg-indigo-600 text-white ring-indigo-600" : "bg-white text-zinc-700 ring-zinc-300 hover:bg-zinc-100",
                  )}
                >
                  {tag}
                </button>
              ),
            )}
          </div>
        </div>
      )}
    </div>
  );
}

function PlayView({ play }: { play: PlanPlay }) {
  return (
    <div data-testid="preview-play">
      <p className="text-sm text-zinc-900">
        <span className="font-medium">{play.name}</span>
        <span className="text-zinc-500"> on hosts </span>
        <code className="rounded bg-white px-1 font-mono text-xs ring-1 ring-zinc-200">{play.hosts}</code>
      </p>
      {play.tasks.length === 0 ? (
        <p className="mt-1 ml-4 text-xs text-zinc-500">no task selected</p>
      ) : (
        <ol className="mt-1 ml-4 list-decimal space-y-0.5 pl-4 text-sm text-zinc-800">
          {play.tasks.map((task, i) => (
            <li key={i}>
              {task.name}
              {task.tags.length > 0 && <span className="ml-2 font-mono text-xs text-zinc-500">[{task.tags.join(", ")}]</span>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
