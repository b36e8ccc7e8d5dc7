import { route } from "@/server/api/route";
import { DomainError } from "@/server/errors";

/**
 * Every /api path no other route matches: the JSON 404 of the one error shape, for every
 * method, instead of Next's HTML page. (Non-canonical paths never get here: the custom server
 * answers them, see server/api/http-entry.ts.)
 */
const notFound = route(async (request: Request) => {
  throw new DomainError("not_found", `no API endpoint at ${new URL(request.url).pathname}`);
});

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;
