import type { OutputChunk } from "@/components/api/types";

/**
 * A chunk split into its lines. The line numbers of the job's output count these lines
 * (docs/api.md, "A job's output, by line"): LineCache places them from the chunk's
 * `firstLine` on.
 */
export interface OutputBlock {
  seq: number;
  stream: string;
  lines: string[];
}

/**
 * The RTE sends whole lines in batches ("a\nb\n"); the final newline ends the block rather
 * than starting an empty line. A chunk without one (a prompt, the runner's own log line)
 * still gets a line of its own.
 */
export function chunkToBlock(chunk: OutputChunk): OutputBlock {
  const text = chunk.text.endsWith("\n") ? chunk.text.slice(0, -1) : chunk.text;
  return { seq: chunk.seq, stream: chunk.stream, lines: chunk.text === "" ? [] : text.split("\n") };
}
