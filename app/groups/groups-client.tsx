"use client";

import { GroupsTable } from "@/components/groups/groups-table";
import { NewGroupForm } from "@/components/groups/new-group-form";
import { useGroups } from "@/components/hooks/use-groups";
import { useUsers } from "@/components/hooks/use-users";
import { PageHeader } from "@/components/ui/page-header";
import { ErrorState, LoadingState } from "@/components/ui/states";

export function GroupsClient() {
  const groups = useGroups();
  const users = useUsers();
  return (
    <>
      <PageHeader
        title="Groups"
        description="Forms name groups in form.yaml access: launch (who sees and launches the form), observe (who reads all its jobs), approve (who approves them besides admins). Everyone else sees only the jobs they launched."
      />
      <div className="space-y-6">
        <NewGroupForm />
        {groups.isPending || users.isPending ? (
          <LoadingState label="Loading groups…" />
        ) : groups.isError ? (
          <ErrorState error={groups.error} onRetry={() => void groups.refetch()} />
        ) : users.isError ? (
          <ErrorState error={users.error} onRetry={() => void users.refetch()} />
        ) : (
          <GroupsTable groups={groups.data} usernames={users.data.map((u) => u.username)} />
        )}
      </div>
    </>
  );
}
