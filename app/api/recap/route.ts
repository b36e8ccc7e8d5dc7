import { NextResponse } from "next/server";
import { requireUser, route } from "@/server/api/route";
import { uploadedText } from "@/server/api/upload";
import { parseRecapChunks } from "@/server/recap/parse-text";

export const dynamic = "force-dynamic";

/** Larger uploads are refused before reading: the parser streams, but the request has limits. */
const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

/**
 * POST /api/recap: the recap of an uploaded ansible-playbook log (a run Playform did not
 * start). The body is the log as text (any text/* or application/octet-stream type), or
 * multipart/form-data with the log in a file field (`log`, else the first file).
 * A text body is parsed as it streams in, never held whole. An incomplete run (a log cut short:
 * killed, aborted) gets the partial_* fields, like a job's recap (docs/recap.md, "Incomplete runs").
 */
export const POST = route(async (request: Request) => {
  await requireUser(request);
  const log = uploadedText(request, { name: "log", maxBytes: MAX_UPLOAD_BYTES });
  return NextResponse.json(await parseRecapChunks(log, { partial: true }));
});
