import { HOST_COUNTERS, type HostCounter, type RecapHostRow } from "@/components/api/types";
import { cx } from "@/components/ui/cx";
import { DataTable, type Column } from "@/components/ui/data-table";
import { COUNTER_COLOURS } from "./colours";

/** Like ansible's recap: the host is red when anything failed, yellow when it changed. */
function hostClass(row: RecapHostRow): string {
  if (row.failed > 0 || row.unreachable > 0) return COUNTER_COLOURS.failed.text;
  if (row.changed > 0) return COUNTER_COLOURS.changed.text;
  return COUNTER_COLOURS.ok.text;
}

const COLUMNS: Column<RecapHostRow>[] = [
  {
    key: "host",
    header: "Host",
    align: "left",
    rowHeader: true,
    cellProps: (row) => ({ className: cx("font-semibold", hostClass(row)) }),
    cell: (row) => row.host,
  },
  ...HOST_COUNTERS.map((counter): Column<RecapHostRow> => ({
    key: counter,
    header: counter,
    align: "right",
    className: "tabular-nums",
    cellProps: (row) => ({
      "data-counter": counter,
      className: row[counter] > 0 ? cx("font-semibold", COUNTER_COLOURS[counter].text) : "text-zinc-400",
    }),
    cell: (row) => row[counter],
  })),
];

export function RecapTable({ hosts }: { hosts: RecapHostRow[] }) {
  const totals = HOST_COUNTERS.reduce(
    (acc, counter) => ({ ...acc, [counter]: hosts.reduce((sum, row) => sum + row[counter], 0) }),
    {} as Record<HostCounter, number>,
  );
  return (
    <DataTable
      testId="recap-table"
      look="dense"
      rows={hosts}
      columns={COLUMNS}
      row={(row) => ({ key: row.host, "data-host": row.host, className: "hover:bg-zinc-50" })}
      bodyClassName="font-mono text-[13px]"
      footerClassName="border-t border-zinc-200 bg-zinc-50 font-mono text-[13px]"
      footer={
        hosts.length > 1 && (
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
        )
      }
    />
  );
}
