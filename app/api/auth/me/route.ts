import { NextResponse } from "next/server";
import { requireUser, route } from "@/server/api/route";

export const GET = route(async (request: Request) => NextResponse.json({ user: await requireUser(request) }));
