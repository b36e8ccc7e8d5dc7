import type { ReactNode } from "react";
import { cx } from "./cx";

/** One labelled value of a `<dl>`: the label small and upper case, the value under it on one line. */
export function Fact({ label, children, valueClassName }: { label: string; children: ReactNode; valueClassName: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-[11px] font-semibold tracking-wide text-zinc-500 uppercase">{label}</dt>
      <dd className={cx("mt-0.5 truncate", valueClassName)}>{children}</dd>
    </div>
  );
}
