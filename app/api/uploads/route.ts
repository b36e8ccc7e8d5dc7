import { NextResponse } from "next/server";
import { parseQuery, requireViewer, route } from "@/server/api/route";
import { multipartFile } from "@/server/api/upload";
import { uploadFile } from "@/server/api/contracts/uploads";
import { storeUpload } from "@/server/forms/uploads";

export const dynamic = "force-dynamic";

/**
 * POST /api/uploads?form=NAME&field=FIELD: a file for a form's file field, as one multipart
 * part named `file`. The body is read only once the field's limits are known, and streamed.
 */
export const POST = route(async (request: Request) => {
  const viewer = await requireViewer(request);
  const { form, field } = parseQuery(request, uploadFile.query);
  const length = request.headers.get("content-length");
  const upload = await storeUpload(viewer, form, field, {
    declaredBytes: length !== null && /^\d+$/.test(length) ? Number(length) : null,
    open: () => multipartFile(request, "file"),
  });
  return NextResponse.json(upload, { status: 201 });
});
