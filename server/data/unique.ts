/** Prisma's error for an insert or update that breaks a unique constraint (P2002), on both databases. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && (error as { code: unknown }).code === "P2002";
}
