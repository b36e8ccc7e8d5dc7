import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Job } from "@/components/api/types";
import { queryKeys } from "./query-keys";

/** An admin approves or rejects a job waiting for approval. */
export function useJobDecision(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ decision, comment }: { decision: "approve" | "reject"; comment: string }) =>
      (
        await apiFetch<{ job: Job }>(`/api/jobs/${id}/${decision}`, {
          method: "POST",
          body: comment.trim() ? { comment: comment.trim() } : {},
        })
      ).job,
    onSuccess: (job) => {
      queryClient.setQueryData(queryKeys.job(id), job);
      void queryClient.invalidateQueries({ queryKey: queryKeys.jobLists() });
    },
  });
}
