/**
 * Jobs of forms with `requiresApproval` wait in status `approval`: they reach no runner (no
 * secrets are sealed, nothing is dispatched) until an admin approves them. The decision itself
 * is a status change, made by JobLifecycle.decide (server/jobs/lifecycle.ts).
 */
import { z } from "zod";

export const decisionSchema = z.object({ comment: z.string().trim().max(500).optional() });
