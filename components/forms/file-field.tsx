import { useState } from "react";
import type { FormField } from "@/components/api/types";
import { errorMessage } from "@/components/api/client";
import { useUpload } from "@/components/hooks/use-upload";
import { Button } from "@/components/ui/button";
import type { ControlProps } from "@/components/ui/field";
import { formatBytes } from "@/components/ui/format";
import type { DraftValue, UploadDraft } from "./form-values";

type FileField = Extract<FormField, { type: "file" }>;

/**
 * A file field: choosing a file uploads it at once (POST /api/uploads), checked against the
 * field's size and type limits by the server; the field then holds the upload's id. The size
 * limit is also checked here first, so a 2 GB file is not sent only to be refused.
 */
export function FileControl({
  form,
  field,
  control,
  value,
  disabled,
  onChange,
}: {
  form: string;
  field: FileField;
  control: ControlProps;
  value: UploadDraft | null;
  disabled?: boolean;
  onChange: (value: DraftValue) => void;
}) {
  const upload = useUpload(form, field.name);
  const tooLarge = (size: number) => `is ${formatBytes(size)}, at most ${formatBytes(field.maxSize)} allowed`;
  const [refused, setRefused] = useState<string | null>(null);
  const localError = refused ?? (upload.error ? errorMessage(upload.error) : null);
  return (
    <div className="space-y-1.5">
      {value ? (
        <div
          className="flex items-center gap-3 rounded-md border border-zinc-200 bg-zinc-50 px-3 py-1.5 text-sm"
          data-testid={`upload-${field.name}`}
        >
          <span className="font-mono text-zinc-800">{value.name}</span>
          {value.size >= 0 && <span className="text-xs text-zinc-500 tabular-nums">{formatBytes(value.size)}</span>}
          <Button size="sm" variant="ghost" disabled={disabled} onClick={() => onChange(null)} className="ml-auto">
            Remove
          </Button>
        </div>
      ) : (
        <input
          {...control}
          type="file"
          accept={field.accept.length > 0 ? field.accept.join(",") : undefined}
          disabled={disabled || upload.isPending}
          className="block text-sm text-zinc-700 file:mr-3 file:rounded-md file:border file:border-zinc-300 file:bg-white file:px-3 file:py-1 file:text-sm file:text-zinc-800 hover:file:bg-zinc-50"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = "";
            setRefused(null);
            upload.reset();
            if (!file) return;
            if (file.size > field.maxSize) {
              setRefused(`${file.name} ${tooLarge(file.size)}.`);
              return;
            }
            upload.mutate(file, { onSuccess: (answer) => onChange({ id: answer.id, name: answer.name, size: answer.size }) });
          }}
        />
      )}
      {upload.isPending && <p className="text-xs text-zinc-500">Uploading…</p>}
      {localError && (
        <p className="text-xs font-medium text-red-600" role="alert">
          {localError}
        </p>
      )}
      <p className="text-xs text-zinc-500">
        At most {formatBytes(field.maxSize)}
        {field.accept.length > 0 && `; ${field.accept.join(", ")}`}
      </p>
    </div>
  );
}
