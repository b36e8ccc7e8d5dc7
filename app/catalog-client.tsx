"use client";

import { useDeferredValue, useState } from "react";
import { FormCard } from "@/components/forms/form-card";
import { ImportFormsButton, ImportReport } from "@/components/forms/import-forms";
import { useImportForms } from "@/components/hooks/use-import-forms";
import { useForms } from "@/components/hooks/use-forms";
import { inputClass } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";

export function CatalogClient({ isAdmin }: { isAdmin: boolean }) {
  const forms = useForms();
  const importForms = useImportForms();
  const [search, setSearch] = useState("");
  const query = useDeferredValue(search.trim().toLowerCase());

  const visible = (forms.data ?? []).filter(
    (form) =>
      query === "" ||
      form.title.toLowerCase().includes(query) ||
      form.name.toLowerCase().includes(query) ||
      form.description.toLowerCase().includes(query),
  );

  return (
    <>
      <PageHeader
        title="Forms"
        description="Pick a form, fill it in and launch the playbook behind it."
        actions={
          <div className="flex items-center gap-2">
            {isAdmin && <ImportFormsButton state={importForms} />}
            <input
              type="search"
              aria-label="Filter forms"
              placeholder="Filter forms…"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              className={inputClass(false, "w-64")}
            />
          </div>
        }
      />
      <ImportReport state={importForms} />
      {forms.isPending ? (
        <LoadingState label="Loading forms…" />
      ) : forms.isError ? (
        <ErrorState error={forms.error} onRetry={() => void forms.refetch()} />
      ) : forms.data.length === 0 ? (
        <EmptyState title="No forms published yet">An administrator publishes playbooks as forms.</EmptyState>
      ) : visible.length === 0 ? (
        <EmptyState title={`No form matches “${search.trim()}”`} />
      ) : (
        <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3" data-testid="form-catalog">
          {visible.map((form) => (
            <li key={form.name}>
              <FormCard form={form} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
