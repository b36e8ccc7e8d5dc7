import type { Metadata } from "next";
import { NotFound } from "@/components/ui/not-found";
import { AppShell } from "@/components/ui/app-shell";
import { getCurrentUser } from "@/server/auth/current-user";

export const metadata: Metadata = { title: "Not found" };

/**
 * Every unknown path, and every page that calls notFound() (a job id that is not a number,
 * a form that does not exist). Signed in, it keeps the nav so the way on is one click away.
 */
export default async function NotFoundPage() {
  const user = await getCurrentUser();
  if (!user) {
    return (
      <main className="flex min-h-screen items-center justify-center bg-zinc-100 px-4">
        <NotFound />
      </main>
    );
  }
  return (
    <AppShell user={user}>
      <div className="py-10">
        <NotFound />
      </div>
    </AppShell>
  );
}
