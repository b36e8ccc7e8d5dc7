import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import { queryKeys } from "./query-keys";

export interface FormImportResult {
  folder: string;
  imported: string[];
  errors: string[];
}

/** Admins: re-read the forms folder after editing it. */
export function useImportForms() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<FormImportResult>("/api/forms/import", { method: "POST" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.forms() }),
  });
}
