import type { ReactNode } from "react";
import { cx } from "./cx";

/** A white bordered box, the unit every page is built from. */
export function Panel({
  title,
  actions,
  children,
  className,
  bodyClassName,
  ...rest
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  /**
   * Replaces the body's default padding (p-4) rather than adding to it: "p-0" next to "p-4"
   * would leave it to the stylesheet's order which one wins (p-4 did, insetting tables).
   */
  bodyClassName?: string;
  "data-testid"?: string;
}) {
  return (
    <section className={cx("rounded-lg border border-zinc-200 bg-white shadow-xs", className)} {...rest}>
      {(title || actions) && (
        <header className="flex items-center justify-between gap-3 border-b border-zinc-200 px-4 py-2.5">
          <h2 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">{title}</h2>
          {actions}
        </header>
      )}
      <div className={bodyClassName ?? "p-4"}>{children}</div>
    </section>
  );
}
