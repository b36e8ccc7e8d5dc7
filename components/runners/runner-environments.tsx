import type { RunnerEnvironment } from "@/components/api/types";

/**
 * The Ansible environments a runner offers (docs/rte.md, "Environments"), one line each:
 * name, ansible-core and Python versions, and its collections, listed when opened (a
 * distribution's ansible brings a hundred). A broken environment shows its error in red.
 */
export function RunnerEnvironments({ environments }: { environments: RunnerEnvironment[] }) {
  // An RTE built before environments reports none.
  if (environments.length === 0) return <span className="text-xs text-zinc-400">not reported</span>;
  return (
    <ul className="flex flex-col gap-1 text-xs">
      {environments.map((environment) => (
        <li
          key={environment.name}
          data-testid="runner-environment"
          data-environment={environment.name}
          data-broken={environment.error !== null}
        >
          <div className="flex flex-wrap items-baseline gap-x-1.5">
            <span className="font-mono font-semibold text-zinc-800" title={environment.description || undefined}>
              {environment.name}
            </span>
            {environment.ansibleCore && (
              <span className="text-zinc-600 tabular-nums" data-testid="environment-ansible-core">
                ansible-core {environment.ansibleCore}
              </span>
            )}
            {environment.python && (
              <span className="text-zinc-500 tabular-nums" data-testid="environment-python">
                · Python {environment.python}
              </span>
            )}
          </div>
          {environment.error && (
            <div role="alert" className="text-red-700" data-testid="environment-error">
              {environment.error}
            </div>
          )}
          {environment.collections.length === 0 && environment.error === null && <div className="text-zinc-400">no collections</div>}
          {environment.collections.length > 0 && (
            <details className="group" data-testid="environment-collections">
              <summary className="cursor-pointer text-zinc-500 select-none hover:text-zinc-700">
                {environment.collections.length} collection{environment.collections.length === 1 ? "" : "s"}
              </summary>
              <ul className="mt-0.5 max-h-48 overflow-y-auto pl-3 font-mono text-[11px] text-zinc-600">
                {environment.collections.map((collection) => (
                  <li key={collection.name} data-collection={collection.name}>
                    {collection.name} <span className="text-zinc-400">{collection.version}</span>
                  </li>
                ))}
              </ul>
            </details>
          )}
        </li>
      ))}
    </ul>
  );
}
