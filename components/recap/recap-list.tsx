import { cx } from "@/components/ui/cx";
import { lineHash, onLineLinkClick } from "@/components/jobs/line-hash";

export type RecapListTone = "neutral" | "changed" | "bad" | "ignored";

const MARKER: Record<RecapListTone, string> = {
  neutral: "bg-zinc-400",
  changed: "bg-amber-500",
  bad: "bg-red-500",
  ignored: "bg-fuchsia-500",
};

/** Where a task name points in the job's output (a line number), or null. */
export type TaskLine = (task: string) => number | null;

/**
 * A titled, counted list of task or host names with a coloured marker per entry. With
 * `link`, an entry it knows a line for links to it in the job's output.
 */
export function RecapList({
  title,
  items,
  empty,
  tone,
  testId,
  hint,
  link,
}: {
  title: string;
  /** One line under the title saying what the list means. */
  hint?: string;
  items: string[];
  empty: string;
  tone: RecapListTone;
  testId: string;
  link?: TaskLine;
}) {
  const marker = MARKER[tone];
  return (
    <div className="min-w-0" data-testid={testId}>
      <h3 className="mb-1.5 flex items-center gap-2 text-xs font-semibold text-zinc-700">
        {title}
        <span className="rounded-full bg-zinc-100 px-1.5 text-[11px] font-medium text-zinc-600 tabular-nums">{items.length}</span>
      </h3>
      {hint && <p className="-mt-1 mb-1.5 text-[11px] text-zinc-500">{hint}</p>}
      {items.length === 0 ? (
        <p className="text-xs text-zinc-400">{empty}</p>
      ) : (
        <ul className="space-y-1">
          {items.map((item, index) => {
            const line = link?.(item) ?? null;
            return (
              <li key={`${index}-${item}`} className="flex items-start gap-2 text-xs text-zinc-800">
                <span aria-hidden="true" className={cx("mt-1.5 size-1.5 shrink-0 rounded-full", marker)} />
                {line === null ? (
                  <span className="break-words">{item}</span>
                ) : (
                  <a href={lineHash(line)} onClick={onLineLinkClick(line)} className="break-words hover:text-indigo-700 hover:underline">
                    {item}
                  </a>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
