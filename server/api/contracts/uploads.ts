/** Contract of the uploads of a form's file fields (server/api/contract.ts). */
import { z } from "zod";
import { endpoint } from "../contract";

export const uploadQuerySchema = z.object({
  form: z.string().min(1).max(200).meta({ description: "the form's name" }),
  field: z.string().min(1).max(64).meta({ description: "the name of one of its file fields" }),
});

export const uploadAnswerSchema = z
  .object({
    id: z.string().meta({ description: "the upload id: the file field's value at launch" }),
    name: z.string().meta({
      description: "the file's name in the job folder: as sent, in NFC, without folders, control or bidi characters (docs/forms.md, file)",
    }),
    size: z.number().int().positive(),
    sha256: z.string(),
    contentType: z.string().nullable(),
  })
  .meta({ id: "Upload" });

export const uploadFile = endpoint({
  method: "post",
  path: "/api/uploads",
  summary: "Upload a file for a form's file field (streamed; the field's maxSize and accept apply)",
  description:
    "Only for a form the caller may launch and a field of type file of it. The answer's `id` is the field's value at launch " +
    "(`values.FIELD`), by the same user only; uploads no job took are deleted after a day.",
  tags: ["forms"],
  access: "user",
  query: uploadQuerySchema,
  body: {
    schema: z.object({ file: z.string().meta({ format: "binary" }) }),
    mediaType: "multipart/form-data",
    description: "One part named `file` (with its file name and, best, its media type); other parts are ignored.",
  },
  responses: { 201: { description: "the stored upload", schema: uploadAnswerSchema } },
  errors: {
    404: "no form of that name that the caller may launch",
    415: "a body that is not multipart/form-data",
  },
});
