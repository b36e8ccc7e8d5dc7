/**
 * Ansible's colours, for light backgrounds, in one place: the recap table, the timeline's
 * bars, the trend's bars and the recap's result all speak the same colours. Literal class
 * names so Tailwind's scanner sees them.
 */
import type { HostCounter, RecapStatus } from "@/components/api/types";

/** Per host counter (a timeline host status has the same names): text, and the bar of a timeline. */
export const COUNTER_COLOURS: Record<HostCounter, { text: string; bar: string }> = {
  ok: { text: "text-green-700", bar: "bg-green-500" },
  changed: { text: "text-amber-600", bar: "bg-amber-500" },
  unreachable: { text: "text-red-600", bar: "bg-red-900" },
  failed: { text: "text-red-600", bar: "bg-red-600" },
  skipped: { text: "text-cyan-700", bar: "bg-cyan-500" },
  rescued: { text: "text-fuchsia-700", bar: "bg-fuchsia-600" },
  ignored: { text: "text-fuchsia-700", bar: "bg-fuchsia-300" },
};

/** Per result of a run: its name as a heading and in a sentence, its text and its bar in a chart. */
export const RECAP_STATUS_STYLE: Record<RecapStatus, { title: string; phrase: string; text: string; bar: string }> = {
  successful: { title: "Successful", phrase: "successful", text: "text-green-700", bar: "bg-green-500 group-hover:bg-green-600" },
  failed: { title: "Failed", phrase: "failed", text: "text-red-600", bar: "bg-red-500 group-hover:bg-red-600" },
  incomplete: {
    title: "Incomplete",
    phrase: "incomplete (stopped before its recap)",
    text: "text-amber-600",
    bar: "bg-amber-400 group-hover:bg-amber-500",
  },
  plan: { title: "Plan only", phrase: "plan only", text: "text-zinc-700", bar: "bg-zinc-400 group-hover:bg-zinc-500" },
};
