import { NextResponse } from "next/server";
import { DEFAULT_JSON_BODY_BYTES, readBodyBytes } from "@/server/api/body";
import { route } from "@/server/api/route";
import { receiveWebhook } from "@/server/sources/sources";

type Context = { params: Promise<{ name: string }> };

/**
 * POST /api/sources/NAME/webhook (no session: the body signed with the source's secret) → 202,
 * the sync runs in the background. A forge's push event is larger than the 16 KiB of other
 * unauthenticated routes: 1 MiB, read before the signature can be checked.
 */
export const POST = route(async (request: Request, { params }: Context) => {
  const body = await readBodyBytes(request, DEFAULT_JSON_BODY_BYTES);
  await receiveWebhook((await params).name, (name) => request.headers.get(name), body);
  return NextResponse.json({ accepted: true }, { status: 202 });
});
