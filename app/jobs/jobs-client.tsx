"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useEffectEvent, useRef, useState, type FormEvent } from "react";
import { ApiError } from "@/components/api/client";
import type { JobStatus } from "@/components/api/types";
import { useForms } from "@/components/hooks/use-forms";
import { JOB_LIST_REFRESH_MS, useJobs } from "@/components/hooks/use-jobs";
import { DEFAULT_VIEW, hasFilters, JOB_STATUSES, readView, viewQuery, viewSearch, type JobListView } from "@/components/jobs/job-list-view";
import { JobsTable } from "@/components/jobs/jobs-table";
import { Button, ButtonLink } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { inputClass } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState, ErrorState, LoadingState, Spinner } from "@/components/ui/states";

const PAGE_SIZE = 50;
/** How long typing in a name filter pauses before the list follows. */
const TYPING_MS = 400;

export function JobsClient() {
  const pathname = usePathname();
  const view = readView(useSearchParams());
  const jobs = useJobs(viewQuery(view, PAGE_SIZE));
  const forms = useForms();
  const filtered = hasFilters(view);

  // Every change is a history entry: the back button undoes it. Next keeps useSearchParams in
  // step with pushState, and the page's server part is not asked again.
  const show = (next: JobListView, replace = false) =>
    window.history[replace ? "replaceState" : "pushState"](null, "", `${pathname}${viewSearch(next)}`);
  /** A filter change starts again on the first page. */
  const filter = (change: Partial<JobListView>) => show({ ...view, ...change, cursor: "" });
  // Typing in a name box commits whenever it pauses: "nob", then "nobody". One entry for the
  // whole word, not one per pause: a commit replaces the previous one of the same box when
  // nothing else changed the address since (Back then skips the half-typed name).
  const typed = useRef<{ field: "user" | "runner"; search: string } | null>(null);
  const typeFilter = (field: "user" | "runner", value: string) => {
    const next = { ...view, [field]: value, cursor: "" };
    const last = typed.current;
    show(next, last !== null && last.field === field && last.search === window.location.search);
    typed.current = { field, search: viewSearch(next) };
  };
  const clearFilters = () => show({ ...DEFAULT_VIEW, sort: view.sort });
  const page = (cursor: string) => {
    show({ ...view, cursor });
    window.scrollTo({ top: 0 });
  };

  const toggleStatus = (status: JobStatus) =>
    filter({ statuses: view.statuses.includes(status) ? view.statuses.filter((s) => s !== status) : [...view.statuses, status] });

  const formNames = (forms.data ?? []).map((f) => f.name);
  const data = jobs.data;

  return (
    <>
      <PageHeader
        title="Jobs"
        description={`Every job, ${view.sort === "created" ? "oldest" : "newest"} first, ${PAGE_SIZE} to a page, refreshed every ${JOB_LIST_REFRESH_MS / 1000} seconds. The filters are part of the address: share it or bookmark it.`}
        actions={jobs.isFetching && !jobs.isPending && <Spinner className="size-3.5" />}
      />

      <section
        aria-label="Filters"
        className="mb-4 space-y-3 rounded-lg border border-zinc-200 bg-white p-3 shadow-xs"
        data-testid="job-filters"
      >
        <div className="flex flex-wrap items-center gap-1.5" role="group" aria-label="Filter by status">
          <span className="mr-1 text-xs font-medium text-zinc-500">Status</span>
          {JOB_STATUSES.map((status) => {
            const on = view.statuses.includes(status);
            return (
              <button
                key={status}
                type="button"
                aria-pressed={on}
                data-testid={`status-filter-${status}`}
                onClick={() => toggleStatus(status)}
                className={cx(
                  "rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ring-inset transition-colors",
                  on ? "bg-indigo-600 text-white ring-indigo-600" : "bg-white text-zinc-700 ring-zinc-300 hover:bg-zinc-50",
                )}
              >
                {status}
              </button>
            );
          })}
        </div>
        <div className="flex flex-wrap items-end gap-2">
          <label className="text-xs text-zinc-600">
            Form
            <select
              aria-label="Filter by form"
              value={view.form}
              onChange={(e) => filter({ form: e.target.value })}
              className={inputClass(false, "mt-1 w-48")}
            >
              <option value="">All forms</option>
              {(forms.data ?? []).map((f) => (
                <option key={f.name} value={f.name}>
                  {f.title}
                </option>
              ))}
              {/* A form named in the address that no longer exists still shows as chosen. */}
              {view.form && !formNames.includes(view.form) && <option value={view.form}>{view.form}</option>}
            </select>
          </label>
          <NameFilter label="User" value={view.user} onCommit={(user) => typeFilter("user", user)} placeholder="username" />
          <NameFilter label="Runner" value={view.runner} onCommit={(runner) => typeFilter("runner", runner)} placeholder="runner name" />
          <label className="text-xs text-zinc-600">
            Created from
            <input
              type="date"
              aria-label="Created from"
              value={view.from}
              max={view.to || undefined}
              onChange={(e) => filter({ from: e.target.value })}
              className={inputClass(false, "mt-1 w-40")}
            />
          </label>
          <label className="text-xs text-zinc-600">
            until
            <input
              type="date"
              aria-label="Created until"
              value={view.to}
              min={view.from || undefined}
              onChange={(e) => filter({ to: e.target.value })}
              className={inputClass(false, "mt-1 w-40")}
            />
          </label>
          <label className="text-xs text-zinc-600">
            Order
            <select
              aria-label="Sort"
              value={view.sort}
              onChange={(e) => filter({ sort: e.target.value === "created" ? "created" : "-created" })}
              className={inputClass(false, "mt-1 w-36")}
            >
              <option value="-created">Newest first</option>
              <option value="created">Oldest first</option>
            </select>
          </label>
          {filtered && (
            <Button size="sm" variant="ghost" onClick={clearFilters} data-testid="clear-filters" className="mb-1">
              Clear filters
            </Button>
          )}
        </div>
      </section>

      {jobs.isPending ? (
        <LoadingState label="Loading jobs…" />
      ) : jobs.isError ? (
        <div className="space-y-3">
          <ErrorState error={jobs.error} onRetry={() => void jobs.refetch()} />
          {/* The API refused the address itself (a stale cursor, a bad date range): offer a way out. */}
          {jobs.error instanceof ApiError && jobs.error.status === 422 && (
            <Button size="sm" onClick={() => show({ ...DEFAULT_VIEW })}>
              Show the newest jobs
            </Button>
          )}
        </div>
      ) : data && data.jobs.length === 0 ? (
        view.cursor ? (
          <EmptyState title="No more jobs this way">
            <div className="mt-3">
              <Button size="sm" onClick={() => page("")}>
                Back to the first page
              </Button>
            </div>
          </EmptyState>
        ) : filtered ? (
          <EmptyState title="No jobs match these filters">
            <div className="mt-3">
              <Button size="sm" onClick={clearFilters}>
                Clear filters
              </Button>
            </div>
          </EmptyState>
        ) : (
          <EmptyState title="No jobs yet">
            <div className="mt-3">
              <ButtonLink href="/" variant="primary" size="sm">
                Launch a form
              </ButtonLink>
            </div>
          </EmptyState>
        )
      ) : data ? (
        <>
          <JobsTable jobs={data.jobs} />
          <nav aria-label="Pages" className="mt-3 flex items-center justify-between gap-3 text-xs text-zinc-500">
            <span data-testid="jobs-page-size">
              {data.jobs.length} job{data.jobs.length === 1 ? "" : "s"} on this page
            </span>
            <div className="flex gap-2">
              <Button
                size="sm"
                data-testid="jobs-newer"
                disabled={!view.cursor || jobs.isPlaceholderData}
                onClick={() => page(data.prevCursor ?? "")}
                title={view.sort === "created" ? "Older jobs (the page before)" : "Newer jobs (the page before)"}
              >
                ← {view.sort === "created" ? "Previous" : "Newer"}
              </Button>
              <Button
                size="sm"
                data-testid="jobs-older"
                disabled={!data.nextCursor || jobs.isPlaceholderData}
                onClick={() => data.nextCursor && page(data.nextCursor)}
                title={view.sort === "created" ? "Newer jobs (the next page)" : "Older jobs (the next page)"}
              >
                {view.sort === "created" ? "Next" : "Older"} →
              </Button>
            </div>
          </nav>
        </>
      ) : null}
    </>
  );
}

/**
 * A text filter (user, runner): the list follows once typing pauses, or at once on Enter. The
 * address is the truth: going back in history puts its value in the box.
 */
function NameFilter({
  label,
  value,
  onCommit,
  placeholder,
}: {
  label: string;
  value: string;
  onCommit: (value: string) => void;
  placeholder: string;
}) {
  const [draft, setDraft] = useState(value);
  const [shown, setShown] = useState(value);
  // The address changed (back button, clear filters): show its value.
  if (value !== shown) {
    setShown(value);
    setDraft(value);
  }
  const commit = useEffectEvent((text: string) => onCommit(text));
  useEffect(() => {
    if (draft.trim() === value) return;
    const timer = setTimeout(() => commit(draft.trim()), TYPING_MS);
    return () => clearTimeout(timer);
  }, [draft, value]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim() !== value) onCommit(draft.trim());
  };
  return (
    <form onSubmit={submit} className="text-xs text-zinc-600">
      <label>
        {label}
        <input
          type="search"
          aria-label={`Filter by ${label.toLowerCase()}`}
          value={draft}
          placeholder={placeholder}
          onChange={(e) => setDraft(e.target.value)}
          className={inputClass(false, "mt-1 w-40")}
          spellCheck={false}
          autoComplete="off"
        />
      </label>
    </form>
  );
}
