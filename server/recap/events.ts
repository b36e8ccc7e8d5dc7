/**
 * Playform structured events, contract version 1.
 *
 * Written one JSON object per line by the `playform_events` callback plugin
 * (server/rte/ansible/callback_plugins/playform_events.py) on a side channel (a pipe fd or a
 * file), never on stdout. Every event has `v` (contract version, 1), `type` and `ts` (epoch
 * seconds, float). Payloads carry names, hosts, statuses and counters only — never a task's
 * result data, but for one thing: under `--diff`, a changed result's diff (`diff`), the text
 * stdout shows for it anyway, masked as stdout is.
 *
 * Parsing is lenient about the future and strict about the present:
 * - a known `type` with `v: 1` must match its schema (extra keys are dropped);
 * - an unknown `type`, or another contract version, parses to `null` and is ignored.
 */
import { z } from "zod";

const base = {
  v: z.literal(1),
  ts: z.number(),
};

const uuid = z.string().min(1);
const count = z.number().int().nonnegative();

/** Start of one playbook file (ansible-playbook may be given several). */
export const playbookStartEventSchema = z.object({
  ...base,
  type: z.literal("playbook_start"),
  /** File name (basename) of the playbook. */
  playbook: z.string().optional(),
});

/** A PLAY banner: once per play, or once per batch of a `serial` play. */
export const playStartEventSchema = z.object({
  ...base,
  type: z.literal("play_start"),
  /** Play uuid (the same for every batch of a serial play). */
  play: z.string().optional(),
  /** NAME as the banner shows it (an unnamed play shows its host pattern). */
  name: z.string(),
  /** Host pattern as written (list patterns joined with ","). */
  pattern: z.string().optional(),
  /** 1-based batch number of this play (serial); 1 for a non-serial play. */
  batch: z.number().int().positive().optional(),
  strategy: z.string().optional(),
  check_mode: z.boolean().optional(),
  /** Number of hosts in this batch and their names (at most 100 names). */
  batch_size: count.optional(),
  batch_hosts: z.array(z.string()).optional(),
});

/** A TASK / RUNNING HANDLER / CLEANUP TASK banner. */
export const taskStartEventSchema = z.object({
  ...base,
  type: z.literal("task_start"),
  task: uuid,
  /**
   * `task.get_name()` when the task starts: templated for the first host like the banner,
   * "role : name" for role tasks. This is the name profile_tasks records.
   */
  name: z.string(),
  /** Banner NAME, only when it differs from `name` (surrounding whitespace is stripped). */
  display_name: z.string().optional(),
  kind: z.enum(["task", "handler", "cleanup"]),
  action: z.string().optional(),
  /** include_tasks / include_role: their results print no ok/changed line. */
  include: z.boolean().optional(),
});

/** The result of a task on one host (for a loop: the loop's own summary result). */
export const taskResultEventSchema = z.object({
  ...base,
  type: z.literal("task_result"),
  task: uuid,
  host: z.string(),
  status: z.enum(["ok", "failed", "skipped", "unreachable"]),
  /** The result's `changed` (after changed_when). A failed result can be changed too. */
  changed: z.boolean(),
  /** ignore_errors (failed) or ignore_unreachable (unreachable) applied; absent = false. */
  ignored: z.boolean().optional(),
  /** delegate_to, when it differs from the host. */
  delegate: z.string().optional(),
  /** A loop's summary result: the display prints its items, not this result. */
  loop: z.boolean().optional(),
  include: z.boolean().optional(),
});

/** One loop item's result on one host. */
export const itemResultEventSchema = z.object({
  ...base,
  type: z.literal("item_result"),
  task: uuid,
  host: z.string(),
  status: z.enum(["ok", "failed", "skipped"]),
  changed: z.boolean(),
  delegate: z.string().optional(),
  /** Item label as displayed, masked then cut to 200 characters by the RTE; absent under no_log. */
  item: z.string().optional(),
  include: z.boolean().optional(),
});

/** `included: FILE for HOSTS` (a dynamic include was loaded). */
export const includeEventSchema = z.object({
  ...base,
  type: z.literal("include"),
  task: uuid.optional(),
  file: z.string().optional(),
  hosts: z.array(z.string()),
  item: z.string().optional(),
});

/** `FAILED - RETRYING` for an `until` loop. */
export const retryEventSchema = z.object({
  ...base,
  type: z.literal("retry"),
  task: uuid,
  host: z.string(),
  attempts: count.optional(),
  retries: count.optional(),
});

/**
 * Under `--diff` (or a task's `diff: true`): the diff of a changed result on one host, as the
 * stdout callback prints it (a loop: its changed items' diffs, one after the other), without
 * colours. Masked, then cut to 16 Ki characters by the RTE. Sent just before the result.
 */
export const diffEventSchema = z.object({
  ...base,
  type: z.literal("diff"),
  task: uuid,
  host: z.string(),
  diff: z.string(),
});

export const noHostsMatchedEventSchema = z.object({ ...base, type: z.literal("no_hosts_matched") });
export const noHostsRemainingEventSchema = z.object({ ...base, type: z.literal("no_hosts_remaining") });

export const statsHostRowSchema = z.object({
  host: z.string(),
  ok: count,
  changed: count,
  unreachable: count,
  failed: count,
  skipped: count,
  rescued: count,
  ignored: count,
});

/** The PLAY RECAP: `stats.summarize(host)` per host, sorted by host. Cumulative over the run. */
export const statsEventSchema = z.object({
  ...base,
  type: z.literal("stats"),
  hosts: z.array(statsHostRowSchema),
  /**
   * What the playbook handed back with set_stats (Ansible's stats.custom, aggregated as Ansible
   * aggregates it): `_run` for the run, a host's name for per_host data. Absent when none.
   */
  custom: z.record(z.string(), z.unknown()).optional(),
  /** Why `custom` is not there though the playbook set some (over the plugin's 1 MiB cap). */
  custom_error: z.string().optional(),
});

/** Sent right after `stats` (Ansible has no later per-playbook callback). */
export const playbookEndEventSchema = z.object({
  ...base,
  type: z.literal("playbook_end"),
  playbook: z.string().optional(),
});

/** The plugin swallowed an exception of its own (the run goes on; events may be missing). */
export const pluginErrorEventSchema = z.object({
  ...base,
  type: z.literal("plugin_error"),
  where: z.string().optional(),
  error: z.string().optional(),
  message: z.string().optional(),
});

/** A known event, parsed strictly. */
export const knownPlayformEventSchema = z.discriminatedUnion("type", [
  playbookStartEventSchema,
  playStartEventSchema,
  taskStartEventSchema,
  taskResultEventSchema,
  itemResultEventSchema,
  includeEventSchema,
  retryEventSchema,
  diffEventSchema,
  noHostsMatchedEventSchema,
  noHostsRemainingEventSchema,
  statsEventSchema,
  playbookEndEventSchema,
  pluginErrorEventSchema,
]);

export type PlayformEvent = z.infer<typeof knownPlayformEventSchema>;
export type PlayformEventType = PlayformEvent["type"];
export type PlayformEventOf<T extends PlayformEventType> = Extract<PlayformEvent, { type: T }>;

/** What one reader of the event stream does with each type of event it cares about. */
export type PlayformEventHandlers = { [T in PlayformEventType]?: (event: PlayformEventOf<T>) => void };

/**
 * Feeds events in order to the handler of their type (`every` first, for every event). The
 * readers of the stream (recap, timeline) differ in what they do, not in how they walk it.
 */
export function visitEvents(
  events: Iterable<PlayformEvent>,
  handlers: PlayformEventHandlers,
  every?: (event: PlayformEvent) => void,
): void {
  for (const event of events) {
    every?.(event);
    // The mapped type pairs each type with its handler; indexing by a union loses that pairing.
    (handlers[event.type] as ((event: PlayformEvent) => void) | undefined)?.(event);
  }
}

export const PLAYFORM_EVENT_TYPES: readonly PlayformEventType[] = [
  "playbook_start",
  "play_start",
  "task_start",
  "task_result",
  "item_result",
  "include",
  "retry",
  "diff",
  "no_hosts_matched",
  "no_hosts_remaining",
  "stats",
  "playbook_end",
  "plugin_error",
];

const KNOWN_TYPES: ReadonlySet<string> = new Set(PLAYFORM_EVENT_TYPES);

/** Envelope shared by every version: anything with a string `type`. */
const envelopeSchema = z.looseObject({ type: z.string(), v: z.unknown().optional() });

function isKnown(value: unknown): boolean {
  const env = envelopeSchema.safeParse(value);
  return env.success && env.data.v === 1 && KNOWN_TYPES.has(env.data.type);
}

/**
 * Lenient event schema: a known v1 event parses strictly to a `PlayformEvent`; an event of an
 * unknown type or of another contract version parses to `null` (ignore it). Anything that is
 * not an object with a string `type`, or a known event with wrong fields, is an error.
 */
export const playformEventSchema = z.union([
  z.custom<unknown>(isKnown).pipe(knownPlayformEventSchema),
  envelopeSchema.refine((e) => !isKnown(e)).transform((): null => null),
]);

export type ParsedPlayformEvent =
  { kind: "event"; event: PlayformEvent } | { kind: "ignored"; type: string } | { kind: "invalid"; error: string };

/** Classify one decoded JSON value. */
export function parsePlayformEvent(value: unknown): ParsedPlayformEvent {
  const env = envelopeSchema.safeParse(value);
  if (!env.success) return { kind: "invalid", error: "not an event object with a string type" };
  if (!isKnown(value)) return { kind: "ignored", type: env.data.type };
  const parsed = knownPlayformEventSchema.safeParse(value);
  if (!parsed.success) return { kind: "invalid", error: z.prettifyError(parsed.error) };
  return { kind: "event", event: parsed.data };
}

/**
 * Parse a JSON-lines event stream, keeping the known valid events in order. Blank lines,
 * undecodable lines (e.g. a line cut off when the run was killed), unknown types and invalid
 * known events are skipped; `onSkip` hears about the last two kinds of problem lines.
 */
export function parsePlayformEventLines(text: string, onSkip?: (line: number, reason: string) => void): PlayformEvent[] {
  const out: PlayformEvent[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim();
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      onSkip?.(i + 1, "invalid JSON");
      continue;
    }
    const parsed = parsePlayformEvent(value);
    if (parsed.kind === "event") out.push(parsed.event);
    else if (parsed.kind === "invalid") onSkip?.(i + 1, parsed.error);
  }
  return out;
}
