"use client";

import { SchedulesTable } from "@/components/schedules/schedules-table";
import { useSchedules } from "@/components/hooks/use-schedules";
import { PageHeader } from "@/components/ui/page-header";
import { ErrorState, LoadingState } from "@/components/ui/states";

export function SchedulesClient({ isAdmin }: { isAdmin: boolean }) {
  const schedules = useSchedules();
  return (
    <>
      <PageHeader
        title="Schedules"
        description={`Forms launched on a cron, with the values saved from the form page ("Schedule…"), as their owner. ${
          isAdmin ? "Everyone's schedules." : "Your schedules."
        }`}
      />
      {schedules.isPending ? (
        <LoadingState label="Loading schedules…" />
      ) : schedules.isError ? (
        <ErrorState error={schedules.error} onRetry={() => void schedules.refetch()} />
      ) : (
        <SchedulesTable schedules={schedules.data} showOwner={isAdmin} />
      )}
    </>
  );
}
