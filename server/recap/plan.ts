/**
 * The plan of a preview: what `ansible-playbook --list-tasks --list-tags` prints, as JSON.
 *
 * Pure: text in, JSON out. The recap parser (parse-text.ts) reads the same play lines but only
 * counts a plan's tasks, in one streaming pass tuned for megabytes of run output; a preview's
 * output is a few lines and its reader wants every name and tag, so it has this parser of its own.
 *
 * The output it reads (ansible-core 2.14 to 2.17, test/fixtures/plan):
 *
 *     playbook: playbook.yml
 *
 *       play #1 (local): Write the marker<TAB>TAGS: [setup]
 *         tasks:
 *           Write the marker file<TAB>TAGS: [files, setup, write]
 *           TASK TAGS: [files, setup, write]
 *
 * A task's TAGS include those it inherits (play, block, role); a play's `TASK TAGS` line is
 * the union of its listed tasks' tags. A failing playbook (syntax error, missing file) prints
 * `ERROR! …` on stderr and lists nothing: that message is the plan's error.
 */

export interface PlanTask {
  /** As Ansible prints it: `role : name` for a role's task, the action for an unnamed task. */
  name: string;
  tags: string[];
}

export interface PlanPlay {
  /** 1-based, as printed (`play #N`). */
  number: number;
  name: string;
  /** The play's host pattern as written (`hosts:`), not the hosts it matches. */
  hosts: string;
  tags: string[];
  tasks: PlanTask[];
}

export interface Plan {
  plays: PlanPlay[];
  /** Every tag the listing shows (plays' and tasks'), sorted: the choices for `--tags`. */
  tags: string[];
  /** Ansible's `ERROR!` message, when it printed one; null otherwise. */
  error: string | null;
}

// eslint-disable-next-line no-control-regex -- ANSI colour sequences are control characters
const ANSI_RE = /\u001b\[[0-9;]*[A-Za-z]/g;
const PLAY_RE = /^ {2}play #(\d+) \((.*?)\): (.*)\tTAGS: \[(.*)\]\s*$/;
const TASK_TAGS_RE = /^ {6}TASK TAGS: \[(.*)\]\s*$/;
const TASK_RE = /^ {6}(.*)\tTAGS: \[(.*)\]\s*$/;

function tagList(inside: string): string[] {
  return inside
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
}

export function parsePlan(text: string): Plan {
  const plays: PlanPlay[] = [];
  const tags = new Set<string>();
  const errorLines: string[] = [];
  let inError = false;
  for (const raw of text.replace(ANSI_RE, "").split(/\r?\n/)) {
    if (inError) {
      errorLines.push(raw);
      continue;
    }
    if (raw.startsWith("ERROR! ")) {
      inError = true;
      errorLines.push(raw.slice("ERROR! ".length));
      continue;
    }
    const play = PLAY_RE.exec(raw);
    if (play) {
      const playTags = tagList(play[4] ?? "");
      for (const tag of playTags) tags.add(tag);
      plays.push({ number: Number(play[1]), hosts: play[2] ?? "", name: play[3] ?? "", tags: playTags, tasks: [] });
      continue;
    }
    const current = plays.at(-1);
    if (!current) continue;
    const taskTags = TASK_TAGS_RE.exec(raw);
    if (taskTags) {
      for (const tag of tagList(taskTags[1] ?? "")) tags.add(tag);
      continue;
    }
    const task = TASK_RE.exec(raw);
    if (task) {
      const listed = tagList(task[2] ?? "");
      for (const tag of listed) tags.add(tag);
      // Ansible indents every task by 6 spaces (nested blocks are flattened); more is the name's.
      current.tasks.push({ name: task[1] ?? "", tags: listed });
    }
  }
  const error = errorLines.join("\n").trim();
  return { plays, tags: [...tags].sort(), error: error === "" ? null : error };
}

const JINJA = /\{\{|\{%/;

/**
 * Whether a play's or task's name holds Jinja (`{{ item }}`, `{% if %}`). `--list-tasks` prints
 * names as written: Ansible fills them in only when the task runs (loop items, facts, values).
 */
export function hasTemplatedNames(plays: readonly PlanPlay[]): boolean {
  return plays.some((play) => JINJA.test(play.name) || play.tasks.some((task) => JINJA.test(task.name)));
}
