import { NextResponse } from "next/server";
import { requireUser, route } from "@/server/api/route";
import { publicFormNamed } from "@/server/forms/catalog";

export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireUser(request);
  return NextResponse.json({ form: await publicFormNamed((await params).name) });
});
