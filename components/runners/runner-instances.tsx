import type { RunnerInstance } from "@/components/api/types";
import { cx } from "@/components/ui/cx";
import { formatAgo, formatDateTime } from "@/components/ui/format";

/** One dot per process of the runner: green while its link to the app is up. */
export function RunnerInstances({ instances, now }: { instances: RunnerInstance[]; now: number }) {
  if (instances.length === 0) return <span className="text-xs text-zinc-400">none yet</span>;
  return (
    <ul className="flex flex-col gap-0.5">
      {instances.map((instance) => (
        <li
          key={instance.instanceId}
          className="flex items-center gap-1.5 text-xs"
          title={`${instance.connected ? "connected" : "disconnected"} · ${instance.runningJobs}/${instance.capacity} jobs · ${
            instance.version ?? "unknown version"
          } · last seen ${formatDateTime(instance.lastSeenAt)}${environmentsNote(instance)}`}
          data-testid="runner-instance"
          data-instance={instance.instanceId}
          data-connected={instance.connected}
        >
          <span
            aria-hidden="true"
            className={cx("size-2 shrink-0 rounded-full", instance.connected ? "bg-green-500 ring-2 ring-green-100" : "bg-zinc-300")}
          />
          <span className={cx("font-mono whitespace-nowrap", instance.connected ? "text-zinc-800" : "text-zinc-400")}>
            {instance.instanceId}
          </span>
          <span className="sr-only">{instance.connected ? "connected" : "disconnected"}</span>
          {instance.connected ? (
            <span className="text-zinc-500 tabular-nums">
              {instance.runningJobs}/{instance.capacity}
            </span>
          ) : (
            <span className="text-zinc-400">{formatAgo(instance.lastSeenAt, now)}</span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** What the instance's own environments are, for when its runner's replicas differ (the runner lists their union). */
function environmentsNote(instance: RunnerInstance): string {
  if (instance.environments.length === 0) return "";
  const each = instance.environments.map((e) =>
    e.error !== null ? `${e.name} (broken)` : `${e.name} (ansible-core ${e.ansibleCore ?? "?"})`,
  );
  return ` · environments: ${each.join(", ")}`;
}
