"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useEffectEvent, useState, type FormEvent } from "react";
import { AuditTable } from "@/components/audit/audit-table";
import {
  AUDIT_OUTCOMES,
  DEFAULT_AUDIT_VIEW,
  auditSearch,
  hasAuditFilters,
  readAuditView,
  type AuditView,
} from "@/components/audit/audit-view";
import { useAudit } from "@/components/hooks/use-audit";
import { Button, buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState, ErrorState, LoadingState, Spinner } from "@/components/ui/states";

const PAGE_SIZE = 100;
/** How long typing in a filter pauses before the list follows. */
const TYPING_MS = 400;

/** `auditRetentionDays`: PLAYFORM_AUDIT_RETENTION_DAYS, null when unset (events are then kept). */
export function AuditClient({ auditRetentionDays }: { auditRetentionDays: number | null }) {
  const pathname = usePathname();
  const view = readAuditView(useSearchParams());
  const search = auditSearch(view);
  const audit = useAudit(`${search}${search ? "&" : ""}limit=${PAGE_SIZE}`);
  const filtered = hasAuditFilters(view);

  // Every change is a history entry: the back button undoes it (and goes back to newer pages).
  const show = (next: AuditView) => {
    const query = auditSearch(next);
    window.history.pushState(null, "", `${pathname}${query ? `?${query}` : ""}`);
  };
  /** A filter change starts again on the newest events. */
  const filter = (change: Partial<AuditView>) => show({ ...view, ...change, before: "" });
  const clearFilters = () => show(DEFAULT_AUDIT_VIEW);
  const page = (before: string) => {
    show({ ...view, before });
    window.scrollTo({ top: 0 });
  };
  const exportQuery = auditSearch(view, { cursor: false });
  const data = audit.data;

  return (
    <>
      <PageHeader
        title="Audit"
        description={`Who did what, when, from where, and how it ended: sign-ins, accounts, runners, credentials, forms imports and jobs. Newest first, ${PAGE_SIZE} to a page. The filters are part of the address. ${
          auditRetentionDays === null
            ? "Events are kept: PLAYFORM_AUDIT_RETENTION_DAYS is not set, so the daily retention run deletes none."
            : `Events older than ${auditRetentionDays} days are deleted by the daily retention run (PLAYFORM_AUDIT_RETENTION_DAYS).`
        }`}
        actions={
          <div className="flex items-center gap-2">
            {audit.isFetching && !audit.isPending && <Spinner className="size-3.5" />}
            <a
              href={`/api/audit/export${exportQuery ? `?${exportQuery}` : ""}`}
              download
              data-testid="audit-export"
              className={buttonClass("secondary", "sm")}
            >
              Download JSON lines
            </a>
          </div>
        }
      />

      <section aria-label="Filters" className="mb-4 rounded-lg border border-zinc-200 bg-white p-3 shadow-xs" data-testid="audit-filters">
        <div className="flex flex-wrap items-end gap-2">
          <TextFilter label="Actor" value={view.actor} onCommit={(actor) => filter({ actor })} placeholder="username or runner:NAME" />
          <TextFilter
            label="Action"
            value={view.action}
            onCommit={(action) => filter({ action })}
            placeholder="job.launch, or job. for all"
          />
          <label className="text-xs text-zinc-600">
            Outcome
            <select
              aria-label="Filter by outcome"
              value={view.outcome}
              onChange={(e) => filter({ outcome: e.target.value as AuditView["outcome"] })}
              className={inputClass(false, "mt-1 w-32")}
            >
              <option value="">Any</option>
              {AUDIT_OUTCOMES.map((outcome) => (
                <option key={outcome} value={outcome}>
                  {outcome}
                </option>
              ))}
            </select>
          </label>
          <label className="text-xs text-zinc-600">
            Since
            <input
              type="date"
              aria-label="Since"
              value={view.since}
              onChange={(e) => filter({ since: e.target.value })}
              className={inputClass(false, "mt-1 w-40")}
            />
          </label>
          {filtered && (
            <Button size="sm" variant="ghost" onClick={clearFilters} data-testid="clear-filters" className="mb-1">
              Clear filters
            </Button>
          )}
        </div>
      </section>

      {audit.isPending ? (
        <LoadingState label="Loading the audit trail…" />
      ) : audit.isError ? (
        <div className="space-y-3">
          <ErrorState error={audit.error} onRetry={() => void audit.refetch()} />
          <Button size="sm" onClick={clearFilters}>
            Show the newest events
          </Button>
        </div>
      ) : data && data.events.length === 0 ? (
        <EmptyState title={view.before ? "No older events" : filtered ? "No events match these filters" : "No events yet"}>
          {(view.before || filtered) && (
            <div className="mt-3">
              <Button size="sm" onClick={view.before ? () => page("") : clearFilters}>
                {view.before ? "Back to the newest" : "Clear filters"}
              </Button>
            </div>
          )}
        </EmptyState>
      ) : data ? (
        <>
          <AuditTable events={data.events} />
          <nav aria-label="Pages" className="mt-3 flex items-center justify-between gap-3 text-xs text-zinc-500">
            <span data-testid="audit-page-size">
              {data.events.length} event{data.events.length === 1 ? "" : "s"} on this page
            </span>
            <div className="flex gap-2">
              <Button size="sm" data-testid="audit-newest" disabled={!view.before || audit.isPlaceholderData} onClick={() => page("")}>
                ← Newest
              </Button>
              <Button
                size="sm"
                data-testid="audit-older"
                disabled={!data.nextCursor || audit.isPlaceholderData}
                onClick={() => data.nextCursor && page(data.nextCursor)}
              >
                Older →
              </Button>
            </div>
          </nav>
        </>
      ) : null}
    </>
  );
}

/** A text filter: the list follows once typing pauses, or at once on Enter. The address is the truth. */
function TextFilter({
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
          className={inputClass(false, "mt-1 w-52")}
          spellCheck={false}
          autoComplete="off"
        />
      </label>
    </form>
  );
}
