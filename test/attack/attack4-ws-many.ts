// Several secrets that start with a run of spaces, against a batch of spaces (attack 4).
import { createMasker } from "../../server/security/mask";
const count = Number(process.argv[2] ?? 10);
const m = createMasker(Array.from({ length: count }, (_, i) => " ".repeat(100) + `x${i}yz`));
const text = " ".repeat(65536) + "\n";
let t = performance.now();
m(text);
console.log(`${count} secrets of 100 leading spaces, 64 KiB of spaces: mask ${(performance.now() - t).toFixed(0)} ms`);
t = performance.now();
m.pending?.(" ".repeat(65536));
console.log(`pending: ${(performance.now() - t).toFixed(0)} ms`);
