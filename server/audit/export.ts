/**
 * The audit trail as JSON lines, streamed: events are read a batch at a time (eachAuditEvent)
 * as the client reads, so an export of 100,000 events never holds them all in memory.
 */
import { eachAuditEvent, type AuditFilter } from "../data/audit";

export const AUDIT_EXPORT_BATCH = 500;

export function auditExportStream(filter: AuditFilter, batchSize = AUDIT_EXPORT_BATCH): ReadableStream<Uint8Array> {
  const events = eachAuditEvent(filter, batchSize);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const lines: string[] = [];
        // Up to one batch of lines per chunk; pull is called again as the client reads.
        while (lines.length < batchSize) {
          const next = await events.next();
          if (next.done) break;
          lines.push(`${JSON.stringify(next.value)}\n`);
        }
        if (lines.length > 0) controller.enqueue(encoder.encode(lines.join("")));
        if (lines.length < batchSize) controller.close();
      },
      async cancel() {
        await events.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}
