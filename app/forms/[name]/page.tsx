import type { Metadata } from "next";
import { requireUser } from "@/components/auth/require-user";
import { AppShell } from "@/components/ui/app-shell";
import { FormClient } from "./form-client";

type Params = Promise<{ name: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: decodeURIComponent((await params).name) };
}

export default async function FormPage({ params }: { params: Params }) {
  const name = decodeURIComponent((await params).name);
  const user = await requireUser(`/forms/${encodeURIComponent(name)}`);
  return (
    <AppShell user={user}>
      <FormClient name={name} />
    </AppShell>
  );
}
