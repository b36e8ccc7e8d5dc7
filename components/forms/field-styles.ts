import { cx } from "@/components/ui/cx";

/** Shared look of text-like inputs; `invalid` switches to the red error state. */
export function inputClass(invalid: boolean, extra?: string): string {
  return cx(
    "block w-full rounded-md border bg-white px-3 py-1.5 text-sm text-zinc-900 shadow-xs placeholder:text-zinc-400",
    "focus:outline-none focus:ring-2 disabled:bg-zinc-50 disabled:text-zinc-500",
    invalid
      ? "border-red-500 focus:border-red-500 focus:ring-red-500/30"
      : "border-zinc-300 focus:border-indigo-500 focus:ring-indigo-500/30",
    extra,
  );
}
