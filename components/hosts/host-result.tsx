import type { HostResult } from "@/components/api/types";
import { cx } from "@/components/ui/cx";

const PARTS: { key: keyof HostResult; tone: string }[] = [
  { key: "ok", tone: "text-emerald-700" },
  { key: "changed", tone: "text-amber-700" },
  { key: "failed", tone: "font-semibold text-red-700" },
  { key: "unreachable", tone: "font-semibold text-red-700" },
];

/** A host's PLAY RECAP counters in one run: ok, changed, failed, unreachable (zero greyed). */
export function HostResultCounts({ result }: { result: HostResult }) {
  return (
    <span className="flex flex-wrap gap-x-2 text-xs whitespace-nowrap" data-testid="host-result">
      {PARTS.map(({ key, tone }) => (
        <span key={key} className={cx(result[key] > 0 ? tone : "text-zinc-400")} data-counter={key}>
          {key} <span className="font-mono tabular-nums">{result[key]}</span>
        </span>
      ))}
    </span>
  );
}
