"use client";

import { errorMessage } from "@/components/api/client";
import type { useImportForms } from "@/components/hooks/use-import-forms";
import { Button } from "@/components/ui/button";

type ImportState = ReturnType<typeof useImportForms>;

/** Admins: re-read the forms folder after editing it. */
export function ImportFormsButton({ state }: { state: ImportState }) {
  return (
    <Button onClick={() => state.mutate()} disabled={state.isPending} data-testid="import-forms">
      {state.isPending ? "Importing…" : "Re-import forms"}
    </Button>
  );
}

/** What the last re-import found: forms imported, forms refused with the file and the reason. */
export function ImportReport({ state }: { state: ImportState }) {
  if (state.isError) return <p className="mb-4 text-sm text-red-700">{errorMessage(state.error)}</p>;
  const result = state.data;
  if (!result) return null;
  return (
    <div className="mb-4 rounded-lg border border-zinc-200 bg-white px-4 py-3 text-sm" data-testid="import-report">
      <p className="text-zinc-700">
        Imported {result.imported.length} form{result.imported.length === 1 ? "" : "s"} from{" "}
        <code className="font-mono text-xs">{result.folder}</code>
        {result.imported.length > 0 && `: ${result.imported.join(", ")}`}.
      </p>
      {result.errors.length > 0 && (
        <ul className="mt-2 space-y-1 text-red-700">
          {result.errors.map((error) => (
            <li key={error} className="font-mono text-xs break-all">
              {error}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
