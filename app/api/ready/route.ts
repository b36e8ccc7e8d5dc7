import { NextResponse } from "next/server";
import { databaseUrl } from "@/server/data/db";
import { migrationStatus } from "@/server/data/migrate";

export const dynamic = "force-dynamic";

/** Ready = the database answers and every committed migration is applied. */
export async function GET() {
  try {
    const { pending } = await migrationStatus(databaseUrl());
    if (pending.length > 0) {
      return NextResponse.json({ status: "not_ready", reason: `${pending.length} migration(s) pending: ${pending.join(", ")}` }, { status: 503 });
    }
    return NextResponse.json({ status: "ready" });
  } catch (error) {
    console.error("[ready] database check failed:", error);
    return NextResponse.json({ status: "not_ready", reason: "database unreachable" }, { status: 503 });
  }
}
