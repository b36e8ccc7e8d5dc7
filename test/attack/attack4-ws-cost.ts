// Cost of masking a long run of spaces when a secret holds a run of spaces (attack 4).
import { createMasker } from "../../server/security/mask";
const sizes = (process.argv[2] ?? "65536,262144").split(",").map(Number);
for (const spaces of [1, 10, 40, 100]) {
  const m = createMasker([(process.argv[3] === "lead" ? "" : "ab") + " ".repeat(spaces) + "cd"]);
  for (const n of sizes) {
    const text = " ".repeat(n) + "\n";
    const t = performance.now();
    m(text);
    console.log(`secret run ${spaces} spaces, text ${n} spaces: mask ${(performance.now() - t).toFixed(0)} ms`);
  }
}
