"use client";

import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api/client";
import type { OutputWindow } from "@/components/api/types";
import { queryKeys } from "@/components/hooks/query-keys";
import { Panel } from "@/components/ui/panel";
import { stripAnsi } from "./ansi";

/** Ansible's error before any task is a few lines (a YAML error quotes the offending lines). */
const TAIL = 200;

/**
 * A failed job whose output has no task: ansible-playbook stopped before its first task (a
 * syntax error, a missing role or inventory, a bad option). Says so, with what ansible printed
 * on stderr (`ERROR! …`); the whole output is in the pane above. There is no recap table or
 * timeline to wait for, so the page asks for none.
 */
export function FailedBeforeTasks({ jobId }: { jobId: number }) {
  const tail = useQuery({
    queryKey: queryKeys.jobErrorLines(jobId),
    queryFn: ({ signal }) => apiFetch<OutputWindow>(`/api/jobs/${jobId}/lines?tail=${TAIL}`, { signal }),
    staleTime: Infinity,
  });
  const stderr = tail.data?.lines.filter((line) => line.stream === "stderr").map((line) => stripAnsi(line.text)) ?? [];
  // Blank lines at either end say nothing; those inside a YAML error's excerpt stay.
  while (stderr.length > 0 && stderr[0]!.trim() === "") stderr.shift();
  while (stderr.length > 0 && stderr[stderr.length - 1]!.trim() === "") stderr.pop();
  return (
    <Panel title="No task ran" data-testid="job-failed-before-tasks">
      <p className="text-sm text-red-700">The playbook failed before its first task.</p>
      {tail.isPending ? null : stderr.length > 0 ? (
        <>
          <p className="mt-2 text-xs text-zinc-500">What ansible-playbook printed on stderr:</p>
          <pre
            className="mt-1 max-h-80 overflow-auto rounded-md bg-zinc-950 p-3 font-mono text-xs whitespace-pre-wrap text-red-200"
            data-testid="job-failed-before-tasks-error"
          >
            {stderr.join("\n")}
          </pre>
        </>
      ) : (
        <p className="mt-2 text-xs text-zinc-500" data-testid="job-failed-before-tasks-error">
          {tail.isError ? "Could not read the output." : "ansible-playbook printed nothing on stderr: see the output above."}
        </p>
      )}
    </Panel>
  );
}
