"use client";

import { useDeferredValue, useState } from "react";
import { byCategory } from "@/components/forms/catalog-groups";
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
      form.description.toLowerCase().includes(query) ||
      (form.category ?? "").toLowerCase().includes(query),
  );
  const groups = byCategory(visible);

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
              aria-label="Search forms"
              placeholder="Search forms…"
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
        <div className="space-y-8" data-testid="form-catalog">
          {groups.map(([category, forms]) => (
            <section key={category} aria-label={category} data-category={category}>
              {groups.length > 1 && <h2 className="mb-3 text-xs font-semibold tracking-wide text-zinc-500 uppercase">{category}</h2>}
              <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
                {forms.map((form) => (
                  <li key={form.name}>
                    <FormCard form={form} />
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </div>
      )}
    </>
  );
}
