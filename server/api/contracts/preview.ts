/**
 * Contracts of a form's preview (server/api/contract.ts): the plan `ansible-playbook
 * --list-tasks --list-tags` lists for the current values and options, run on the form's runner
 * as a job of kind "preview" (docs/api.md, "Preview").
 */
import { z } from "zod";
import { jobStatusSchema } from "../../protocol/ui-messages";
import { endpoint } from "../contract";
import { launchBodySchema } from "./jobs";

const nameParams = z.object({ name: z.string().meta({ description: "the form's name" }) });

/** A launch's body without the form, which the path names. */
export const previewBodySchema = launchBodySchema.omit({ form: true });

export const startPreview = endpoint({
  method: "post",
  path: "/api/forms/[name]/preview",
  summary: "Preview a form's plan: list its plays, tasks and tags for these values and options, running nothing",
  tags: ["forms", "jobs"],
  access: "user",
  params: nameParams,
  body: { schema: previewBodySchema },
  responses: { 201: { description: "the preview job's id", schema: z.object({ id: z.number().int().positive() }) } },
  errors: { 404: "unknown form (or one the caller may not launch)" },
});

const planTaskSchema = z.object({ name: z.string(), tags: z.array(z.string()) });
const planPlaySchema = z.object({
  number: z.number().int(),
  name: z.string(),
  hosts: z.string().meta({ description: "the play's host pattern as written" }),
  tags: z.array(z.string()),
  tasks: z.array(planTaskSchema),
});

export const getPreview = endpoint({
  method: "get",
  path: "/api/forms/[name]/preview/[id]",
  summary: "A preview's status and, once listed, its plan",
  tags: ["forms", "jobs"],
  access: "user",
  params: nameParams.extend({ id: z.string().meta({ description: "the preview's job id" }) }),
  responses: {
    200: {
      description: "the plan so far",
      schema: z
        .object({
          id: z.number().int(),
          form: z.string(),
          status: jobStatusSchema,
          done: z.boolean(),
          plays: z.array(planPlaySchema),
          tags: z.array(z.string()),
          error: z.string().nullable(),
        })
        .meta({ id: "PreviewPlan" }),
    },
  },
  errors: { 404: "no such preview of this form, or one the caller may not see" },
});
