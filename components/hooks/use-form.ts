import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { FormDetail } from "@/components/api/types";
import { queryKeys } from "./query-keys";

export function useForm(name: string) {
  return useQuery({
    queryKey: queryKeys.form(name),
    queryFn: async ({ signal }) => (await apiFetch<{ form: FormDetail }>(`/api/forms/${encodeURIComponent(name)}`, { signal })).form,
  });
}
