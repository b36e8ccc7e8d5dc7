import { NextResponse } from "next/server";
import { playformRuntime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** Ready = the database answers and every committed migration is applied. */
export async function GET() {
  const reason = await playformRuntime().notReadyReason();
  if (reason) return NextResponse.json({ status: "not_ready", reason }, { status: 503 });
  return NextResponse.json({ status: "ready" });
}
