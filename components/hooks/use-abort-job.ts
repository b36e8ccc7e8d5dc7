import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Job } from "@/components/api/types";
import { queryKeys } from "./query-keys";

export function useAbortJob(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await apiFetch<{ job: Job }>(`/api/jobs/${id}/abort`, { method: "POST" })).job,
    onSuccess: (job) => {
      queryClient.setQueryData(queryKeys.job(id), job);
      void queryClient.invalidateQueries({ queryKey: queryKeys.jobLists() });
    },
  });
}
