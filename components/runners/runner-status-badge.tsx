import type { RunnerStatus } from "@/components/api/types";
import { cx } from "@/components/ui/cx";

const STYLES: Record<RunnerStatus, { badge: string; dot: string }> = {
  pending: { badge: "bg-violet-50 text-violet-700 ring-violet-200", dot: "bg-violet-500 animate-pulse" },
  approved: { badge: "bg-green-50 text-green-700 ring-green-200", dot: "bg-green-500" },
  rejected: { badge: "bg-zinc-100 text-zinc-600 ring-zinc-200", dot: "bg-zinc-400" },
  revoked: { badge: "bg-red-50 text-red-700 ring-red-200", dot: "bg-red-500" },
};

export function RunnerStatusBadge({ status }: { status: RunnerStatus }) {
  const style = STYLES[status] ?? STYLES.rejected;
  return (
    <span
      className={cx("inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ring-inset", style.badge)}
      data-testid="runner-status"
      data-status={status}
    >
      <span aria-hidden="true" className={cx("size-1.5 rounded-full", style.dot)} />
      {status}
    </span>
  );
}
