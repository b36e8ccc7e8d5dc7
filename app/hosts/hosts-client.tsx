"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useState } from "react";
import { HostResultCounts } from "@/components/hosts/host-result";
import { useDebounced } from "@/components/hooks/use-debounced";
import { useHosts } from "@/components/hooks/use-hosts";
import { JobStatusBadge } from "@/components/jobs/job-status-badge";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { formatWhen } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";
import { EmptyState, ErrorState, LoadingState, Spinner } from "@/components/ui/states";

/** How long typing in the search pauses before the list follows. */
const TYPING_MS = 300;

/** Every host of the runs the reader may see, by name, with its newest run; `?q=` searches. */
export function HostsClient() {
  const pathname = usePathname();
  const params = useSearchParams();
  const [typed, setTyped] = useState(() => params.get("q") ?? "");
  const q = useDebounced(typed.trim(), TYPING_MS);
  const hosts = useHosts(q);
  const rows = hosts.data?.pages.flatMap((page) => page.hosts) ?? [];

  const onType = (value: string) => {
    setTyped(value);
    // The search is part of the address (no history entry per keystroke).
    window.history.replaceState(null, "", value.trim() ? `${pathname}?q=${encodeURIComponent(value.trim())}` : pathname);
  };

  return (
    <>
      <PageHeader
        title="Hosts"
        description="Every host of the runs you can see, with its newest run and what that run did to it. Open a host for its runs over time and the tasks that changed it."
        actions={hosts.isFetching && !hosts.isPending ? <Spinner className="size-3.5" /> : undefined}
      />
      <div className="mb-4">
        <label className="text-xs text-zinc-600">
          Search
          <input
            type="search"
            value={typed}
            onChange={(event) => onType(event.target.value)}
            placeholder="a part of the host's name"
            aria-label="Search hosts"
            className={inputClass(false, "mt-1 block w-full max-w-md")}
            data-testid="hosts-search"
          />
        </label>
      </div>
      {hosts.isPending ? (
        <LoadingState label="Loading hosts…" />
      ) : hosts.isError ? (
        <ErrorState error={hosts.error} onRetry={() => void hosts.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={q ? `No host matches "${q}"` : "No hosts yet"}>
          {q ? "Try a shorter part of the name." : "A host appears here once a run you can see has ended with it in its PLAY RECAP."}
        </EmptyState>
      ) : (
        <Panel bodyClassName="p-0">
          <table className="w-full text-sm" data-testid="hosts-table">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-xs font-medium text-zinc-600">
              <tr>
                <th scope="col" className="px-4 py-2">
                  Host
                </th>
                <th scope="col" className="px-4 py-2">
                  Newest run
                </th>
                <th scope="col" className="px-4 py-2">
                  Its result on the host
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {rows.map((host) => (
                <tr key={host.name} data-testid="host-row" data-host={host.name}>
                  <td className="px-4 py-2 font-mono text-xs">
                    <Link href={`/hosts/${encodeURIComponent(host.name)}`} className="text-indigo-600 hover:underline">
                      {host.name}
                    </Link>
                    {host.drift && (
                      <span
                        className="ml-2 rounded bg-orange-100 px-1.5 py-0.5 font-sans text-[11px] font-medium text-orange-900"
                        title={`A drift check of ${host.drift.forms.join(", ")} finds changes on it (newest: job #${host.drift.jobId})`}
                        data-testid="host-drifted"
                      >
                        drifted since {formatWhen(host.drift.since)}
                      </span>
                    )}
                  </td>
                  <td className="px-4 py-2 text-xs whitespace-nowrap">
                    <span className="flex items-center gap-2">
                      <Link href={`/jobs/${host.lastJob.id}`} className="font-mono text-indigo-600 hover:underline">
                        #{host.lastJob.id}
                      </Link>
                      <span className="text-zinc-700">{host.lastJob.form}</span>
                      <JobStatusBadge status={host.lastJob.status} />
                      <span className="text-zinc-500" title={host.lastJob.finishedAt}>
                        {formatWhen(host.lastJob.finishedAt)}
                      </span>
                    </span>
                  </td>
                  <td className="px-4 py-2">
                    <HostResultCounts result={host.lastResult} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Panel>
      )}
      {hosts.hasNextPage && (
        <div className="mt-3">
          <Button onClick={() => void hosts.fetchNextPage()} disabled={hosts.isFetchingNextPage} data-testid="hosts-more">
            {hosts.isFetchingNextPage ? "Loading…" : "More hosts"}
          </Button>
        </div>
      )}
    </>
  );
}
