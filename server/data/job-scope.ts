/**
 * Which jobs a reader may see, as the data layer applies it (the rule itself is
 * server/access/policy.ts): every job (admins), or their own and those of the forms whose
 * jobs they observe or approve.
 */
import type { Prisma } from "./generated/sqlite/client";

export type JobScope = { all: true } | { all: false; userId: string; formNames: readonly string[] };

export const ALL_JOBS: JobScope = { all: true };

export function scopeWhere(scope: JobScope): Prisma.JobWhereInput {
  if (scope.all) return {};
  if (scope.formNames.length === 0) return { userId: scope.userId };
  return { OR: [{ userId: scope.userId }, { formName: { in: [...scope.formNames] } }] };
}
