import type { ReactNode } from "react";
import type { User } from "@/components/api/types";
import { Nav } from "./nav";

/** Chrome of every signed-in page: the top nav and a centred content column. */
export function AppShell({ user, children }: { user: User; children: ReactNode }) {
  return (
    <>
      <Nav user={user} />
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">{children}</main>
    </>
  );
}
