import type { JobStatus } from "@/components/api/types";
import { cx } from "@/components/ui/cx";

const STYLES: Record<JobStatus, { badge: string; dot: string; label: string }> = {
  approval: { badge: "bg-violet-50 text-violet-700 ring-violet-200", dot: "bg-violet-500", label: "approval" },
  queued: { badge: "bg-zinc-100 text-zinc-700 ring-zinc-200", dot: "bg-zinc-400", label: "queued" },
  running: { badge: "bg-sky-50 text-sky-700 ring-sky-200", dot: "bg-sky-500 animate-pulse", label: "running" },
  success: { badge: "bg-green-50 text-green-700 ring-green-200", dot: "bg-green-500", label: "success" },
  failed: { badge: "bg-red-50 text-red-700 ring-red-200", dot: "bg-red-500", label: "failed" },
  aborted: { badge: "bg-amber-50 text-amber-800 ring-amber-200", dot: "bg-amber-500", label: "aborted" },
  abandoned: { badge: "bg-zinc-200 text-zinc-700 ring-zinc-300", dot: "bg-zinc-500", label: "abandoned" },
  rejected: { badge: "bg-rose-50 text-rose-700 ring-rose-200", dot: "bg-rose-500", label: "rejected" },
};

export function JobStatusBadge({ status, size = "sm", testId }: { status: JobStatus; size?: "sm" | "md"; testId?: string }) {
  const style = STYLES[status] ?? STYLES.queued;
  return (
    <span
      className={cx(
        "inline-flex items-center gap-1.5 rounded-full font-medium ring-1 ring-inset",
        size === "md" ? "px-2.5 py-1 text-xs" : "px-2 py-0.5 text-[11px]",
        style.badge,
      )}
      data-testid={testId}
      data-status={status}
    >
      <span aria-hidden="true" className={cx("size-1.5 rounded-full", style.dot)} />
      {style.label}
    </span>
  );
}
