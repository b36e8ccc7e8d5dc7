import { NextResponse } from "next/server";
import { route } from "@/server/api/route";
import { authProviders } from "@/server/auth/oidc";

export const GET = route(async () => NextResponse.json(authProviders()));
