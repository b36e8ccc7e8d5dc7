import type { Job } from "@/components/api/types";

type Plan = NonNullable<Job["plan"]>;

/** The options a job runs with, as ansible-playbook reads them: only what differs from a plain run. */
function optionWords(options: Plan["options"]): string[] {
  const words: string[] = [];
  if (options.check) words.push("check mode");
  if (options.diff) words.push("diff");
  if (options.limit) words.push(`limit ${options.limit}`);
  if (options.tags.length > 0) words.push(`tags ${options.tags.join(", ")}`);
  if (options.skipTags.length > 0) words.push(`skip tags ${options.skipTags.join(", ")}`);
  if (options.verbosity > 0) words.push(`-${"v".repeat(options.verbosity)}`);
  return words;
}

/**
 * What a job runs, as frozen at its launch (server/jobs/plan.ts): the approval panel shows it so
 * an approver approves exactly this, and the job page keeps it once the job ran. The form may
 * have changed since; this does not.
 */
export function JobPlan({ job }: { job: Job }) {
  const plan = job.plan;
  if (!plan) return null;
  const options = optionWords(plan.options);
  const rows: [string, string, string][] = [
    ["Playbook", plan.playbook, "plan-playbook"],
    ["Inventories", plan.inventories.length > 0 ? plan.inventories.join(", ") : "none (localhost only)", "plan-inventories"],
    ["Options", options.length > 0 ? options.join("; ") : "none", "plan-options"],
    [
      "Files",
      job.source ? `${job.source.name} at commit ${job.source.commit.slice(0, 12)}` : `content ${plan.contentHash.slice(0, 12)}`,
      "plan-files",
    ],
    ["Runner", plan.runner, "plan-runner"],
  ];
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-sm" data-testid="job-plan">
      {rows.map(([label, value, testId]) => (
        <div key={label} className="contents">
          <dt className="text-zinc-500">{label}</dt>
          <dd
            className="min-w-0 font-mono text-xs break-all text-zinc-900"
            data-testid={testId}
            title={label === "Files" ? plan.contentHash : undefined}
          >
            {value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
