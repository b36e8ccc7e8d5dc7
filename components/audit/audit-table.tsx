import type { AuditEvent } from "@/components/api/types";
import { cx } from "@/components/ui/cx";
import { DataTable, type Column } from "@/components/ui/data-table";
import { formatDateTime } from "@/components/ui/format";

const OUTCOME_CLASS: Record<AuditEvent["outcome"], string> = {
  success: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  failure: "bg-amber-50 text-amber-800 ring-amber-200",
  denied: "bg-red-50 text-red-700 ring-red-200",
};

function detailsText(details: AuditEvent["details"]): string {
  if (!details) return "";
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
}

const COLUMNS: Column<AuditEvent>[] = [
  {
    key: "at",
    header: "When",
    className: "whitespace-nowrap text-zinc-600",
    cell: (e) => <time dateTime={e.at}>{formatDateTime(e.at)}</time>,
  },
  {
    key: "actor",
    header: "Who",
    cell: (e) => e.actor ?? <span className="text-zinc-400">nobody</span>,
    cellProps: () => ({ "data-cell": "actor" }),
  },
  { key: "action", header: "Action", className: "font-mono text-xs", cell: (e) => e.action, cellProps: () => ({ "data-cell": "action" }) },
  {
    key: "target",
    header: "Target",
    className: "font-mono text-xs",
    cell: (e) => e.target ?? "",
    cellProps: () => ({ "data-cell": "target" }),
  },
  {
    key: "outcome",
    header: "Outcome",
    cell: (e) => (
      <span className={cx("rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset", OUTCOME_CLASS[e.outcome])}>{e.outcome}</span>
    ),
    cellProps: () => ({ "data-cell": "outcome" }),
  },
  {
    key: "ip",
    header: "From",
    className: "font-mono text-xs text-zinc-600",
    cell: (e) => e.ip ?? "",
    cellProps: (e) => ({ title: e.userAgent ?? "" }),
  },
  {
    key: "details",
    header: "Details",
    className: "max-w-md truncate text-xs text-zinc-600",
    cell: (e) => detailsText(e.details),
    cellProps: (e) => ({ title: detailsText(e.details) }),
  },
];

export function AuditTable({ events }: { events: readonly AuditEvent[] }) {
  return (
    <DataTable
      rows={events}
      columns={COLUMNS}
      row={(e) => ({ key: e.id, "data-audit-id": e.id, "data-action": e.action })}
      testId="audit-table"
    />
  );
}
