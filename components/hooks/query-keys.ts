import type { JobListQuery } from "@/components/api/types";

/**
 * Every react-query key the UI uses, in one place: a socket event or a mutation that
 * updates the cache must hit exactly the key the matching query reads.
 */
export const queryKeys = {
  forms: () => ["forms"] as const,
  form: (name: string) => ["forms", name] as const,
  fieldChoices: (name: string, field: string, inputs: Record<string, unknown>) => ["forms", name, "choices", field, inputs] as const,
  formTrend: (name: string, last: number) => ["forms", name, "trend", last] as const,
  formIdempotence: (name: string, last: number) => ["forms", name, "idempotence", last] as const,
  formPreview: (name: string, id: number) => ["forms", name, "preview", id] as const,
  formReport: (name: string, jobs: string) => ["forms", name, "report", jobs] as const,
  jobLists: () => ["jobs", "list"] as const,
  jobList: (query: JobListQuery) => ["jobs", "list", query] as const,
  job: (id: number) => ["jobs", "detail", id] as const,
  jobPermissions: (id: number) => ["jobs", "detail", id, "permissions"] as const,
  jobRecap: (id: number) => ["jobs", "detail", id, "recap"] as const,
  jobTimeline: (id: number) => ["jobs", "detail", id, "timeline"] as const,
  jobArtifacts: (id: number) => ["jobs", "detail", id, "artifacts"] as const,
  jobTasks: (id: number) => ["jobs", "detail", id, "tasks"] as const,
  jobErrorLines: (id: number) => ["jobs", "detail", id, "error-lines"] as const,
  jobProgress: (id: number) => ["jobs", "detail", id, "progress"] as const,
  jobNotifications: (id: number) => ["jobs", "detail", id, "notifications"] as const,
  jobsProgress: (ids: readonly number[]) => ["jobs", "progress", ids] as const,
  jobComparedWithPrevious: (id: number) => ["jobs", "detail", id, "compare", "previous"] as const,
  runners: () => ["runners"] as const,
  credentials: () => ["credentials"] as const,
  sources: () => ["sources"] as const,
  users: () => ["users"] as const,
  ownProfile: () => ["auth", "me"] as const,
  groups: () => ["groups"] as const,
  audit: (search: string) => ["audit", search] as const,
  /** Personal API tokens: your own ("mine") or, for admins, everyone's ("all"). */
  tokens: (whose: "mine" | "all") => ["tokens", whose] as const,
  schedules: () => ["schedules"] as const,
  hosts: (q: string) => ["hosts", "list", q] as const,
  host: (name: string) => ["hosts", "detail", name] as const,
};
