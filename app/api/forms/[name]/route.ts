import { NextResponse } from "next/server";
import { requireViewer, route } from "@/server/api/route";
import { requireLaunchableForm } from "@/server/access/policy";
import { publicForm } from "@/server/forms/public-view";

/** A form the reader may launch (404 for one they may not, as for one that does not exist). */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  const form = await requireLaunchableForm(await requireViewer(request), (await params).name);
  return NextResponse.json({ form: publicForm(form.definition) });
});
