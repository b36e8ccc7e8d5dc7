/**
 * Checking a push webhook against a source's shared secret, as the three common forges send it:
 * - GitHub (and Forgejo, Gogs): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`;
 * - Gitea: `X-Gitea-Signature: <hex HMAC-SHA256 of the body>`;
 * - GitLab: `X-Gitlab-Token: <the secret itself>` (GitLab signs nothing).
 * Every comparison goes through equal-length SHA-256 digests in constant time, so neither a
 * matching prefix nor the expected value's length shows in the timing.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

function sameText(actual: string, expected: string): boolean {
  const a = createHash("sha256").update(actual, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/** The hex HMAC-SHA256 of the body with the secret, as GitHub and Gitea compute it. */
export function webhookHmac(secret: string, body: Uint8Array): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

/**
 * Whether the request's headers prove it knows the secret. `header` reads one header
 * (case-insensitive, as Headers.get). The first header present decides; none present: false.
 */
export function webhookSignatureValid(header: (name: string) => string | null, body: Uint8Array, secret: string): boolean {
  if (secret === "") return false;
  const github = header("x-hub-signature-256");
  if (github !== null) return sameText(github.trim().toLowerCase(), `sha256=${webhookHmac(secret, body)}`);
  const gitea = header("x-gitea-signature");
  if (gitea !== null) return sameText(gitea.trim().toLowerCase(), webhookHmac(secret, body));
  const gitlab = header("x-gitlab-token");
  if (gitlab !== null) return sameText(gitlab, secret);
  return false;
}
