/**
 * How a job's output is numbered by line: the rule the app uses when it stores chunks
 * (server/jobs/output-index.ts), the line API answers with, and the browser places live
 * chunks by. A leaf: it imports nothing.
 *
 * Lines are 1-based and run across the whole output in storage order (stdout, stderr and the
 * runner's own lines). Every chunk starts a new line: the runner cuts batches at line ends, and
 * a chunk without a final newline (a prompt, a partial line flushed when the playbook ended)
 * still gets a line of its own. A chunk's final newline ends its last line rather than
 * starting an empty one; the empty text holds no line.
 */

/** The lines of one chunk's text, without their newlines. */
export function chunkLines(text: string): string[] {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

/** How many lines chunkLines(text) returns, without building them. */
export function countChunkLines(text: string): number {
  if (text === "") return 0;
  let count = 1;
  const last = text.length - 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < last; at = text.indexOf("\n", at + 1)) count++;
  return count;
}
