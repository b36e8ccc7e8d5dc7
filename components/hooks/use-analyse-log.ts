import { useMutation } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { Recap } from "@/components/api/types";

/**
 * The recap of a log Playform did not run: pasted text or a chosen file, sent as the raw
 * request body (the server parses it as it streams in; multipart would make it buffer).
 */
export function useAnalyseLog() {
  return useMutation({
    mutationFn: (log: string | Blob) => apiFetch<Recap>("/api/recap", { method: "POST", text: log }),
  });
}
