import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { FormSummary } from "@/components/api/types";
import { queryKeys } from "./query-keys";

export function useForms() {
  return useQuery({
    queryKey: queryKeys.forms(),
    queryFn: async ({ signal }) => (await apiFetch<{ forms: FormSummary[] }>("/api/forms", { signal })).forms,
  });
}
