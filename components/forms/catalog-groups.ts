/** The catalog's sections: the forms grouped by their form.yaml `category`. */
import type { FormSummary } from "@/components/api/types";

export const OTHER = "Other";
/** The category a newcomer should see first (the hello-world example's). */
export const GETTING_STARTED = "getting started";

/** Where a category sorts: Getting started first, Other (no category) last, the rest between. */
function rank(category: string): number {
  if (category.toLowerCase() === GETTING_STARTED) return 0;
  return category === OTHER ? 2 : 1;
}

/**
 * The forms by category (form.yaml `category`): "Getting started" first, then the categories
 * by name, those without one ("Other") last.
 */
export function byCategory<T extends Pick<FormSummary, "category">>(forms: readonly T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const form of forms) {
    const category = form.category ?? OTHER;
    groups.set(category, [...(groups.get(category) ?? []), form]);
  }
  return [...groups.entries()].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}
