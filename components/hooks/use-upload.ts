import { useMutation } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { UploadAnswer } from "@/server/forms/uploads";

/** Uploads one file for a form's file field (POST /api/uploads); the field then holds its id. */
export function useUpload(form: string, field: string) {
  return useMutation({
    mutationFn: (file: File) => {
      const body = new FormData();
      body.append("file", file, file.name);
      const query = new URLSearchParams({ form, field });
      return apiFetch<UploadAnswer>(`/api/uploads?${query.toString()}`, { method: "POST", form: body });
    },
  });
}
