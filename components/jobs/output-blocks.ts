import type { OutputChunk } from "@/components/api/types";

/** A chunk split into display lines once, when it arrives. */
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

function hasSeq(blocks: OutputBlock[], seq: number): boolean {
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = blocks[mid]!.seq;
    if (at === seq) return true;
    if (at < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Merges chunks into the seq-ordered blocks, dropping duplicates. Duplicates are normal:
 * HTTP pages, the socket's catch-up and live delivery overlap by design. Chunks can also
 * arrive out of order (a live chunk overtaking the server's catch-up of older ones), so an
 * older unseen chunk is inserted in place rather than dropped. Returns the same array
 * when nothing is new, so React skips the render.
 */
export function mergeChunks(blocks: OutputBlock[], chunks: OutputChunk[]): OutputBlock[] {
  const fresh: OutputBlock[] = [];
  const seen = new Set<number>();
  for (const chunk of chunks) {
    if (seen.has(chunk.seq) || hasSeq(blocks, chunk.seq)) continue;
    seen.add(chunk.seq);
    fresh.push(chunkToBlock(chunk));
  }
  if (fresh.length === 0) return blocks;
  fresh.sort((a, b) => a.seq - b.seq);
  const lastSeq = blocks[blocks.length - 1]?.seq ?? -1;
  if (fresh[0]!.seq > lastSeq) return blocks.concat(fresh);
  return [...blocks, ...fresh].sort((a, b) => a.seq - b.seq);
}
