"use client";

import { useState } from "react";
import { inputClass } from "@/components/ui/field";
import { useForms } from "@/components/hooks/use-forms";
import { JOB_LIST_REFRESH_MS, useJobs } from "@/components/hooks/use-jobs";
import { JobsTable } from "@/components/jobs/jobs-table";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState, ErrorState, LoadingState, Spinner } from "@/components/ui/states";

export function JobsClient() {
  const [form, setForm] = useState("");
  const jobs = useJobs({ form: form || undefined, limit: 50 });
  const forms = useForms();

  return (
    <>
      <PageHeader
        title="Jobs"
        description={`The 50 most recent jobs, refreshed every ${JOB_LIST_REFRESH_MS / 1000} seconds.`}
        actions={
          <>
            {jobs.isFetching && !jobs.isPending && <Spinner className="size-3.5" />}
            <select
              aria-label="Filter by form"
              value={form}
              onChange={(e) => setForm(e.target.value)}
              className={inputClass(false, "w-56")}
            >
              <option value="">All forms</option>
              {(forms.data ?? []).map((f) => (
                <option key={f.name} value={f.name}>
                  {f.title}
                </option>
              ))}
            </select>
          </>
        }
      />
      {jobs.isPending ? (
        <LoadingState label="Loading jobs…" />
      ) : jobs.isError ? (
        <ErrorState error={jobs.error} onRetry={() => void jobs.refetch()} />
      ) : jobs.data.length === 0 ? (
        <EmptyState title={form ? "No jobs for this form yet" : "No jobs yet"}>
          <div className="mt-3">
            <ButtonLink href="/" variant="primary" size="sm">
              Launch a form
            </ButtonLink>
          </div>
        </EmptyState>
      ) : (
        <JobsTable jobs={jobs.data} />
      )}
    </>
  );
}
