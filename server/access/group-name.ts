import { z } from "zod";

/** Group names appear in form.yaml `access:`, in URLs (/api/groups/NAME/members) and in the SSO group map. */
export const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
export const groupNameSchema = z
  .string()
  .regex(GROUP_NAME, "must be letters, digits, '-', '_' or '.', starting with a letter or digit (at most 63)");
