import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { FormValue, RunOptions } from "@/components/api/types";
import { queryKeys } from "./query-keys";

export interface LaunchRequest {
  form: string;
  values: Record<string, FormValue>;
  options?: RunOptions;
}

export function useLaunchJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: LaunchRequest) => apiFetch<{ id: number }>("/api/jobs", { method: "POST", body: request }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.jobLists() }),
  });
}
