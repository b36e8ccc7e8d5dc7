import type { Metadata } from "next";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { decodeSegment } from "@/components/ui/decode";
import { HostClient } from "./host-client";

type Params = Promise<{ name: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: `Host · ${decodeSegment((await params).name)}` };
}

/** `/hosts/NAME`: a host's runs, newest first (GET /api/hosts/NAME); a host the reader sees no run of is the API's 404. */
export default async function HostPage({ params }: { params: Params }) {
  const name = decodeSegment((await params).name);
  const user = await requirePageUser(`/hosts/${encodeURIComponent(name)}`);
  return (
    <AppShell user={user}>
      <HostClient name={name} />
    </AppShell>
  );
}
