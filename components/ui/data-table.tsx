import type { HTMLAttributes, Key, ReactNode, TdHTMLAttributes } from "react";
import { cx } from "./cx";
import { Panel } from "./panel";

/** data-* attributes, which tests and styles select rows and cells by. */
type DataAttributes = { [name: `data-${string}`]: string | number | boolean | undefined };

export interface Column<Row> {
  key: string;
  /** The header cell; give a column of buttons a header for screen readers only (`sr-only`). */
  header: ReactNode;
  align?: "left" | "right";
  /** Added to the column's body cells. */
  className?: string;
  /** The cell names its row (`<th scope="row">`), as the host does in the recap. */
  rowHeader?: boolean;
  cell: (row: Row) => ReactNode;
  /** What a cell needs from its row besides content: a title, data-* attributes, classes. */
  cellProps?: (row: Row) => TdHTMLAttributes<HTMLTableCellElement> & DataAttributes;
}

type Look = "boxed" | "panel" | "dense";

const LOOKS: Record<Look, { wrapper?: string; table: string; thead: string; th: string; tbody: string; td: string }> = {
  /** Alone on a page, in its own white box (jobs, runners). */
  boxed: {
    wrapper: "overflow-x-auto rounded-lg border border-zinc-200 bg-white shadow-xs",
    table: "min-w-full divide-y divide-zinc-200 text-sm",
    thead: "bg-zinc-50",
    th: "px-3 py-2 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase",
    tbody: "divide-y divide-zinc-100",
    td: "px-3 py-2",
  },
  /** The body of a Panel (credentials, users). */
  panel: {
    table: "w-full text-sm",
    thead: "bg-zinc-50 text-xs font-semibold tracking-wide text-zinc-500 uppercase",
    th: "px-4 py-2",
    tbody: "divide-y divide-zinc-100",
    td: "px-4 py-2",
  },
  /** Tight rows of figures in a Panel (the recap's counters). */
  dense: {
    wrapper: "overflow-x-auto",
    table: "min-w-full text-sm",
    thead: "border-b border-zinc-200 bg-zinc-50",
    th: "px-3 py-2 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase",
    tbody: "divide-y divide-zinc-100",
    td: "px-3 py-1.5",
  },
};

const ALIGN = { left: "text-left", right: "text-right" } as const;

/**
 * The one table markup of the app: a header row from `columns`, a row per item. Rows and
 * cells take data-* attributes (tests find rows by them), one column may head its rows, and
 * `footer` (a `<tr>`) goes in a tfoot. With a `title` the table is the body of a Panel.
 */
export function DataTable<Row>({
  rows,
  columns,
  row: rowAttributes,
  title,
  look = "boxed",
  cellClassName,
  bodyClassName,
  footer,
  footerClassName,
  testId,
}: {
  rows: readonly Row[];
  columns: readonly Column<Row>[];
  /** The row's React key and what its `<tr>` needs: data-* attributes, classes, a click handler. */
  row: (row: Row) => { key: Key } & HTMLAttributes<HTMLTableRowElement> & DataAttributes;
  /** Replaces the look's cell padding (padding classes side by side would fight). */
  cellClassName?: string;
  /** Added to the tbody: a font for every row, say. */
  bodyClassName?: string;
  footer?: ReactNode;
  footerClassName?: string;
  testId: string;
} & ({ title: ReactNode; look?: never } | { title?: never; look?: Exclude<Look, "panel"> })) {
  const styles = LOOKS[title === undefined ? look : "panel"];
  const table = (
    <table className={styles.table} data-testid={testId}>
      <thead className={styles.thead}>
        <tr>
          {columns.map((column) => (
            <th key={column.key} scope="col" className={cx(styles.th, ALIGN[column.align ?? "left"])}>
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className={cx(styles.tbody, bodyClassName)}>
        {rows.map((row) => {
          const { key, ...attributes } = rowAttributes(row);
          return (
            <tr key={key} {...attributes}>
              {columns.map((column) => {
                const { className, ...props } = column.cellProps?.(row) ?? {};
                const Cell = column.rowHeader ? "th" : "td";
                return (
                  <Cell
                    key={column.key}
                    scope={column.rowHeader ? "row" : undefined}
                    className={cx(cellClassName ?? styles.td, column.align && ALIGN[column.align], column.className, className)}
                    {...props}
                  >
                    {column.cell(row)}
                  </Cell>
                );
              })}
            </tr>
          );
        })}
      </tbody>
      {footer && <tfoot className={footerClassName}>{footer}</tfoot>}
    </table>
  );
  if (title !== undefined) {
    return (
      <Panel title={title} bodyClassName="p-0">
        {table}
      </Panel>
    );
  }
  return styles.wrapper ? <div className={styles.wrapper}>{table}</div> : table;
}
