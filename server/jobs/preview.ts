/**
 * A preview's answer: the plan its runner listed (`ansible-playbook --list-tasks --list-tags`,
 * server/recap/plan.ts), read from the preview job's stored output, with the job's status so
 * the form page can say where it is while it waits.
 */
import { iterateOutput } from "../data/job-output";
import { getJobKind, type JobStatus } from "../data/jobs";
import { DomainError } from "../errors";
import { requireVisibleJob, type Viewer } from "../access/policy";
import { stripAnsiByLine } from "../protocol/ansi";
import { parsePlan, type PlanPlay } from "../recap/plan";
import { isFinalStatus } from "./lifecycle";

export interface PreviewPlan {
  id: number;
  form: string;
  status: JobStatus;
  /** The job ended (success or not): the plan is complete. */
  done: boolean;
  plays: PlanPlay[];
  /** Every tag the listing shows, sorted: the choices for the `tags` run option. */
  tags: string[];
  /** Why there is no plan: Ansible's ERROR! message, else why the job ended the way it did. */
  error: string | null;
}

/**
 * A listing is a few lines per task; this bounds what is read of a preview that printed more
 * (a verbose preview of a huge playbook): the plan is then cut, and says so.
 */
const MAX_PREVIEW_TEXT = 4 * 1024 * 1024;

/** The preview job `jobId` of form `formName`; 404 when it is not one, or the viewer may not see it. */
export async function previewPlan(viewer: Viewer, formName: string, jobId: number): Promise<PreviewPlan> {
  const { job } = await requireVisibleJob(viewer, jobId);
  if (job.form !== formName || (await getJobKind(jobId)) !== "preview") {
    throw new DomainError("not_found", `no preview ${jobId} of form "${formName}"`);
  }
  let text = "";
  let cut = false;
  for await (const page of iterateOutput(jobId)) {
    // Line by line, as the output pane shows it: an OSC left open must not join two lines.
    for (const chunk of page) text += stripAnsiByLine(chunk.text);
    if (text.length > MAX_PREVIEW_TEXT) {
      cut = true;
      break;
    }
  }
  const plan = parsePlan(text);
  const done = isFinalStatus(job.status);
  let error = plan.error;
  if (error === null && done && job.status !== "success") {
    error = job.statusReason ?? `ansible-playbook ended ${job.status}${job.exitCode === null ? "" : ` with exit code ${job.exitCode}`}`;
  }
  if (error === null && cut) error = `the listing is longer than ${MAX_PREVIEW_TEXT / 1024 / 1024} MB; only its start is shown`;
  return { id: job.id, form: job.form, status: job.status, done, plays: plan.plays, tags: plan.tags, error };
}
