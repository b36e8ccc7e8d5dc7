/** Contract of the recap of an uploaded log (server/api/contract.ts). */
import { z } from "zod";
import { endpoint } from "../contract";
import { recapSchema } from "./jobs";

export const recapOfLog = endpoint({
  method: "post",
  path: "/api/recap",
  summary: "The recap of an uploaded ansible-playbook log (streamed; at most 512 MiB)",
  tags: ["analysis"],
  access: "user",
  body: {
    schema: z.string(),
    mediaType: "text/plain",
    description: "The log as text (any text/* or application/octet-stream), or multipart/form-data with the log in the file field `log`.",
  },
  responses: {
    200: {
      description: "the recap; an incomplete log (killed, aborted) adds partial_hosts, partial_elapsed_sec, partial_slowest_tasks",
      schema: recapSchema,
    },
  },
  errors: {
    400: "an empty log, or a malformed multipart body",
    413: "a log over 512 MiB",
    415: "a body of another type (JSON, say): the message says what it takes",
  },
});
