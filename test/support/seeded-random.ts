/**
 * Deterministic randomness for benchmarks' data: the same seed gives the same rows on every
 * database and every run, so figures compare.
 */

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function generator(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Index k drawn with weight 1/(k+1)^s: a few very busy forms and users, a long tail of rare ones. */
export function zipf(count: number, s: number, random: () => number): () => number {
  const weights = Array.from({ length: count }, (_, k) => 1 / (k + 1) ** s);
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  let sum = 0;
  for (const w of weights) cumulative.push((sum += w / total));
  return () => {
    const r = random();
    const index = cumulative.findIndex((c) => c >= r);
    return index < 0 ? count - 1 : index;
  };
}
