"use client";

import { useRef, useState, type FormEvent } from "react";
import { errorMessage } from "@/components/api/client";
import { inputClass } from "@/components/ui/field";
import { useAnalyseLog } from "@/components/hooks/use-analyse-log";
import { RecapReport } from "@/components/recap/recap-report";
import { Button, buttonClass } from "@/components/ui/button";
import { formatBytes } from "@/components/ui/format";
import { PageHeader } from "@/components/ui/page-header";
import { Panel } from "@/components/ui/panel";

function lineCount(text: string): number {
  if (text === "") return 0;
  const lines = text.split("\n").length;
  return text.endsWith("\n") ? lines - 1 : lines;
}

/** Paste a log or choose a file, get the PLAY RECAP and analytics a job page would show. */
export function RecapClient() {
  const analyse = useAnalyseLog();
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  // What the result on screen was computed from: the inputs may have changed since.
  const [analysed, setAnalysed] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const canSubmit = (file !== null || text.trim() !== "") && !analyse.isPending;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!canSubmit) return;
    const source = file
      ? `the file ${file.name} (${formatBytes(file.size)})`
      : `the pasted text (${lineCount(text)} ${lineCount(text) === 1 ? "line" : "lines"})`;
    analyse.mutate(file ?? text, { onSuccess: () => setAnalysed(source) });
  };

  const clearFile = () => {
    setFile(null);
    // Otherwise choosing the same file again fires no change event.
    if (fileInput.current) fileInput.current.value = "";
  };

  return (
    <>
      <PageHeader
        title="Analyse a log"
        description="Paste the output of an ansible-playbook run that Playform did not start (any verbosity; default, yaml or debug callback), or choose a file: that output, or Ansible's own log file (log_path), of which the last run is read. You get the PLAY RECAP and run analytics a job page shows. Nothing is stored."
      />
      <div className="space-y-6">
        <Panel title="Log" bodyClassName="p-0">
          <form onSubmit={onSubmit} aria-describedby={analyse.isError ? "analyse-error" : undefined}>
            <div className="p-4">
              <textarea
                aria-label="Log text"
                value={text}
                onChange={(e) => setText(e.target.value)}
                disabled={file !== null}
                rows={12}
                spellCheck={false}
                placeholder={
                  "PLAY [web servers] ****************************\n\nTASK [Install nginx] **************************\nchanged: [web1]\n…\nPLAY RECAP ************************************"
                }
                className={inputClass(false, "min-h-48 resize-y font-mono text-xs! leading-5")}
                data-testid="log-text"
              />
              {file !== null && <p className="mt-1.5 text-xs text-zinc-500">The chosen file is analysed, not the text above.</p>}
            </div>
            {analyse.isError && (
              <div
                id="analyse-error"
                role="alert"
                className="mx-4 mb-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800"
                data-testid="analyse-error"
              >
                <span className="font-semibold">Could not analyse the log:</span> {errorMessage(analyse.error)}
              </div>
            )}
            <div className="flex flex-wrap items-center gap-3 rounded-b-lg border-t border-zinc-200 bg-zinc-50 px-4 py-3">
              <input
                ref={fileInput}
                id="log-file"
                type="file"
                accept=".log,.txt,.out,text/plain"
                className="sr-only"
                onChange={(e) => setFile(e.target.files?.[0] ?? null)}
                data-testid="log-file"
              />
              <label htmlFor="log-file" className={buttonClass("secondary", "md", "cursor-pointer")}>
                Choose a file…
              </label>
              {file !== null && (
                <span
                  className="flex min-w-0 items-center gap-1.5 rounded-md bg-white px-2 py-1 text-xs text-zinc-700 ring-1 ring-zinc-200"
                  data-testid="chosen-file"
                >
                  <span className="truncate font-mono" title={file.name}>
                    {file.name}
                  </span>
                  <span className="shrink-0 text-zinc-400">{formatBytes(file.size)}</span>
                  <button
                    type="button"
                    onClick={clearFile}
                    className="ml-0.5 rounded px-1 text-zinc-400 hover:bg-zinc-100 hover:text-zinc-900"
                    aria-label="Remove the chosen file"
                  >
                    ×
                  </button>
                </span>
              )}
              <div className="ml-auto flex items-center gap-2">
                {(text !== "" || file !== null || analyse.data) && (
                  <Button
                    variant="ghost"
                    onClick={() => {
                      setText("");
                      clearFile();
                      setAnalysed(null);
                      analyse.reset();
                    }}
                  >
                    Clear
                  </Button>
                )}
                <Button type="submit" variant="primary" disabled={!canSubmit}>
                  {analyse.isPending ? "Analysing…" : "Analyse"}
                </Button>
              </div>
            </div>
          </form>
        </Panel>
        {analyse.data && (
          <section className="space-y-3" aria-label="Result" data-testid="analyse-result">
            <p className="text-xs text-zinc-500">
              Recap of <span className="text-zinc-800">{analysed}</span>
            </p>
            <RecapReport
              recap={analyse.data}
              noRecap="No play and no PLAY RECAP in this text: is it the output of ansible-playbook, or Ansible's log file (log_path) of a playbook run?"
            />
          </section>
        )}
      </div>
    </>
  );
}
