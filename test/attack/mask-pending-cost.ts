import { createMasker } from "../../server/security/mask";
const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
let s = 7;
const r = (n: number, a = alnum) => {
  let o = "";
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    o += a[s % a.length];
  }
  return o;
};
for (const count of [1, 10, 30, 50, 100]) {
  const secrets = Array.from({ length: count }, () => r(16 + (s % 20)));
  const mask = createMasker(secrets);
  const tail = Array.from({ length: 40 }, () => `  ${r(60, alnum + " .,:'\"")}`).join("\n") + "\n  partial line, here";
  mask.pending!(tail);
  let t = performance.now();
  for (let i = 0; i < 20; i++) mask.pending!(tail + i);
  const p = (performance.now() - t) / 20;
  const text = Array.from({ length: 20000 }, () => `  ${r(80, alnum + " .,:'\"")}`).join("\n");
  t = performance.now();
  mask(text);
  const m = performance.now() - t;
  console.log(count, "pending(tail of", tail.length, "chars) ms:", p.toFixed(1), " mask 1.6MB ms:", m.toFixed(0));
}
