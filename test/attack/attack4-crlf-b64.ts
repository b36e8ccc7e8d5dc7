// A multi-line secret with CRLF line ends, printed as the base64 of its LF form (a file
// normalised by git or an editor), wrapped at 76 columns: are its lines' base64 masked? (attack 4)
import { createMasker } from "../../server/security/mask";
const key =
  "-----BEGIN OPENSSH PRIVATE KEY-----\r\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\r\nQyNTUxOQAAACDx0nT7hK3c2mK9yQv9Qb0Yk3n7r5f1uQm1sQ0m5xXkTwAAAJg2n5Xl\r\n-----END OPENSSH PRIVATE KEY-----\r\n";
const m = createMasker([key]);
for (const [name, form] of [
  ["CRLF as is", key],
  ["LF", key.replace(/\r\n/g, "\n")],
  ["LF, no final newline", key.replace(/\r\n/g, "\n").trimEnd()],
] as const) {
  const b64 = Buffer.from(form).toString("base64");
  const text = b64.match(/.{1,76}/g)!.join("\n") + "\n";
  const out = m(text);
  // What of the key's body lines can be decoded back from the masked output?
  const decoded = Buffer.from(out.replace(/\n/g, "").replace(/\*+/g, ""), "base64").toString("latin1");
  const leaked = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUA", "QyNTUxOQAAACDx0nT7hK3c2mK9yQv9"].filter((s) => decoded.includes(s.slice(0, 12)));
  console.log(name.padEnd(22), "masked pieces:", (out.match(/\*{8}/g) ?? []).length, "leaked body starts:", leaked);
}
