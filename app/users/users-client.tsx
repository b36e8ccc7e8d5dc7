"use client";

import type { User } from "@/components/api/types";
import { useUsers } from "@/components/hooks/use-users";
import { NewUserForm } from "@/components/users/new-user-form";
import { UsersTable } from "@/components/users/users-table";
import { AllTokens } from "@/components/tokens/all-tokens";
import { PageHeader } from "@/components/ui/page-header";
import { ErrorState, LoadingState } from "@/components/ui/states";

export function UsersClient({ me }: { me: User }) {
  const users = useUsers();
  return (
    <>
      <PageHeader
        title="Users"
        description="Users launch forms and follow jobs; admins also manage runners, credentials and accounts. A password reset or role change signs the user out everywhere."
      />
      <div className="space-y-6">
        <NewUserForm />
        {users.isPending ? (
          <LoadingState label="Loading users…" />
        ) : users.isError ? (
          <ErrorState error={users.error} onRetry={() => void users.refetch()} />
        ) : (
          <>
            <UsersTable users={users.data} me={me} />
            <AllTokens usernames={users.data.map((u) => u.username)} />
          </>
        )}
      </div>
    </>
  );
}
