/**
 * Only same-site paths are accepted as a post-login target; "//evil.example" or
 * "https://..." in ?next= would otherwise turn the login page into an open redirect.
 */
export function safeReturnPath(next: string | string[] | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  return value;
}
