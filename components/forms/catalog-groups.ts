/** The catalog's sections: the forms grouped by their form.yaml `category`. */
import type { FormSummary } from "@/components/api/types";

export const OTHER = "Other";

/** The forms by category (form.yaml `category`), categories by name, those without one last. */
export function byCategory<T extends Pick<FormSummary, "category">>(forms: readonly T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const form of forms) {
    const category = form.category ?? OTHER;
    groups.set(category, [...(groups.get(category) ?? []), form]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a === OTHER ? 1 : b === OTHER ? -1 : a.localeCompare(b)));
}
