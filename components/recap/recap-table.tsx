import { HOST_COUNTERS, type HostCounter, type RecapHostRow } from "@/components/api/types";
import { cx } from "@/components/ui/cx";

/** ansible's own colours for the PLAY RECAP counters, for light backgrounds. */
const COUNTER_CLASS: Record<HostCounter, string> = {
  ok: "text-green-700",
  changed: "text-amber-600",
  unreachable: "text-red-600",
  failed: "text-red-600",
  skipped: "text-cyan-700",
  rescued: "text-fuchsia-700",
  ignored: "text-fuchsia-700",
};

/** Like ansible's recap: the host is red when anything failed, yellow when it changed. */
function hostClass(row: RecapHostRow): string {
  if (row.failed > 0 || row.unreachable > 0) return "text-red-600";
  if (row.changed > 0) return "text-amber-600";
  return "text-green-700";
}

const TH = "px-3 py-2 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase";

export function RecapTable({ hosts }: { hosts: RecapHostRow[] }) {
  const totals = HOST_COUNTERS.reduce(
    (acc, counter) => ({ ...acc, [counter]: hosts.reduce((sum, row) => sum + row[counter], 0) }),
    {} as Record<HostCounter, number>,
  );
  return (
    <div className="overflow-x-auto">
      <table className="min-w-full text-sm" data-testid="recap-table">
        <thead className="border-b border-zinc-200 bg-zinc-50">
          <tr>
            <th scope="col" className={cx(TH, "text-left")}>
              Host
            </th>
            {HOST_COUNTERS.map((counter) => (
              <th key={counter} scope="col" className={cx(TH, "text-right")}>
                {counter}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 font-mono text-[13px]">
          {hosts.map((row) => (
            <tr key={row.host} data-host={row.host} className="hover:bg-zinc-50">
              <th scope="row" className={cx("px-3 py-1.5 text-left font-semibold", hostClass(row))}>
                {row.host}
              </th>
              {HOST_COUNTERS.map((counter) => (
                <td
                  key={counter}
                  data-counter={counter}
                  className={cx(
                    "px-3 py-1.5 text-right tabular-nums",
                    row[counter] > 0 ? cx("font-semibold", COUNTER_CLASS[counter]) : "text-zinc-400",
                  )}
                >
                  {row[counter]}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
        {hosts.length > 1 && (
          <tfoot className="border-t border-zinc-200 bg-zinc-50 font-mono text-[13px]">
            <tr>
              <th scope="row" className="px-3 py-1.5 text-left font-sans text-xs font-semibold text-zinc-600">
                {hosts.length} hosts
              </th>
              {HOST_COUNTERS.map((counter) => (
                <td key={counter} className="px-3 py-1.5 text-right text-zinc-700 tabular-nums">
                  {totals[counter]}
                </td>
              ))}
            </tr>
          </tfoot>
        )}
      </table>
    </div>
  );
}
