import { NextResponse } from "next/server";
import { requireViewer, route } from "@/server/api/route";
import { formFor } from "@/server/forms/form-views";

/** A form the reader may launch (404 for one they may not, as for one that does not exist). */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) =>
  NextResponse.json({ form: await formFor(await requireViewer(request), (await params).name) }),
);
