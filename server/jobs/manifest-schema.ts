import { z } from "zod";
import { manifestEntrySchema } from "../protocol/rte-messages";

/** Job.manifest as stored (JSON column). */
export const manifestSchema = z.array(manifestEntrySchema);
