import { NextResponse } from "next/server";
import { requireViewer, route } from "@/server/api/route";
import { catalogFor } from "@/server/forms/form-views";

/** The catalog: the forms the reader may launch. */
export const GET = route(async (request: Request) => NextResponse.json({ forms: await catalogFor(await requireViewer(request)) }));
