/** Attack 5: a secret with "/@ €é+=?& in the claimed encodings (URL, %xx mixed case, + for space, base64/base64url/URL of its JSON-escaped form, dockerconfigjson). Usage: npx tsx test/attack/attack5-encodings.ts */
import { createMasker } from "../../server/security/mask";
const S = 'p@ss/wörd "x" +€=?&';
const m = createMasker([S]);
const url = encodeURIComponent(S);
const mixed = url.replace(/%([0-9A-F]{2})/g, (_, h, i) => "%" + (i % 2 ? h.toLowerCase() : h));
const json = JSON.stringify(S).slice(1, -1);
const pyJson = json.replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
const cases: Record<string, string> = {
  url,
  mixed,
  lower: url.replace(/%[0-9A-F]{2}/g, (x) => x.toLowerCase()),
  b64json: Buffer.from(pyJson).toString("base64"),
  b64urljson: Buffer.from(pyJson).toString("base64url"),
  urljson: encodeURIComponent(pyJson),
  urljsonRaw: encodeURIComponent(json),
  plusForSpace: url.replace(/%20/g, "+"),
  dockercfg: Buffer.from(JSON.stringify({ auths: { r: { password: S, auth: Buffer.from("u:" + S).toString("base64") } } })).toString(
    "base64",
  ),
};
for (const [k, v] of Object.entries(cases))
  console.log(k.padEnd(14), m(`x ${v} y`).includes("********") ? "masked" : "CLEAR", JSON.stringify(m(`x ${v} y`)).slice(0, 90));
