import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePageUser } from "@/server/auth/require-page-user";
import { AppShell } from "@/components/ui/app-shell";
import { decodeSegment } from "@/components/ui/decode";
import { findLaunchableForm, viewerOf } from "@/server/access/policy";
import { FormClient } from "./form-client";

type Params = Promise<{ name: string }>;

// Next 16 hands generateMetadata the decoded segment but the page the raw one (checked:
// /forms/h%C3%A9 gives "hé" here and "h%C3%A9" below), so only the page decodes.
export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: (await params).name };
}

/** `?from=ID` (Run again): a job id as the API reads ids; anything else is ignored. */
function jobIdParam(raw: string | string[] | undefined): number | undefined {
  return typeof raw === "string" && /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2_147_483_647 ? Number(raw) : undefined;
}

export default async function FormPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const name = decodeSegment((await params).name);
  const user = await requirePageUser(`/forms/${encodeURIComponent(name)}`);
  // After the login check: a signed-out visitor learns nothing about which forms exist; a form
  // the user may not launch is as absent as one that does not exist (server/access/policy.ts).
  if (!(await findLaunchableForm(await viewerOf(user), name))) notFound();
  return (
    <AppShell user={user}>
      <FormClient name={name} from={jobIdParam((await searchParams).from)} />
    </AppShell>
  );
}
