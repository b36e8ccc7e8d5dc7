import { useMutation, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { RunnerAction, RunnerActionResult } from "@/components/api/types";

/** What the Runners page does to a runner: an action (POST /api/runners/ID/ACTION), or delete (a rejected one). */
export type RunnerPageAction = RunnerAction | "delete";
import { queryKeys } from "./query-keys";

/** approve / reject / revoke / rotate / default / delete on one runner; the list is re-read afterwards. */
export function useRunnerAction(runnerId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (action: RunnerPageAction) =>
      action === "delete"
        ? apiFetch<undefined>(`/api/runners/${encodeURIComponent(runnerId)}`, { method: "DELETE" })
        : apiFetch<RunnerActionResult>(`/api/runners/${encodeURIComponent(runnerId)}/${action}`, { method: "POST" }),
    // Also after a 409: the runner's state was not what this tab thought, so show the real one.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.runners() }),
  });
}
