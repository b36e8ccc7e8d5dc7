import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { FieldOption, FormValue } from "@/components/api/types";
import { queryKeys } from "./query-keys";
import { useDebounced } from "./use-debounced";

/** How long the user must pause typing in a field the URL names before the choices are asked. */
const SETTLE_MS = 300;

/**
 * The choices of a field whose options come from an HTTP source, fetched by the app for the
 * values of the fields its URL names (`dependsOn`): refetched when one of them changes, not
 * asked at all while one is empty (the server would answer "fill in … first"), and asked once
 * the user pauses typing rather than at every keystroke.
 */
export function useFieldChoices(form: string, field: string, dependsOn: readonly string[], values: Record<string, FormValue>) {
  const inputs = useDebounced(Object.fromEntries(dependsOn.map((name) => [name, values[name]])), SETTLE_MS);
  const missing = dependsOn.filter((name) => {
    const value = inputs[name];
    return value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);
  });
  const query = useQuery({
    queryKey: queryKeys.fieldChoices(form, field, inputs),
    queryFn: async ({ signal }) =>
      (
        await apiFetch<{ choices: FieldOption[] }>(`/api/forms/${encodeURIComponent(form)}/choices/${encodeURIComponent(field)}`, {
          method: "POST",
          body: { values: inputs },
          signal,
        })
      ).choices,
    enabled: missing.length === 0,
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 30_000,
  });
  return { ...query, missing };
}
