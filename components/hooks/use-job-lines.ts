"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { io, type Socket } from "socket.io-client";
import { ApiError, apiFetch } from "@/components/api/client";
import { isFinalStatus, type OutputWindow } from "@/components/api/types";
import { JobLines, type JobLinesState, type LinesQuery } from "@/components/jobs/job-lines";
import {
  UI_CONTRACT_VERSION,
  UI_NAMESPACE,
  UI_SOCKET_PATH,
  UiEvents,
  jobChunksSchema,
  jobStatusMessageSchema,
  type JobFollow,
} from "@/server/protocol/ui-messages";
import { queryKeys } from "./query-keys";

/** While the socket is down and the job is live, the tail is read this often instead. */
const FALLBACK_POLL_MS = 3000;

export type LiveConnection = "idle" | "connecting" | "live" | "offline";

export interface JobOutputLines extends JobLinesState {
  connection: LiveConnection;
  /** The lines shown now (1-based, inclusive): pages around them are read, far ones dropped. */
  setView: (first: number, last: number) => void;
}

function readLines(jobId: number) {
  return (query: LinesQuery, signal: AbortSignal) => {
    const params = "tail" in query ? `tail=${query.tail}` : `from=${query.from}&count=${query.count}`;
    return apiFetch<OutputWindow>(`/api/jobs/${jobId}/lines?${params}`, { signal });
  };
}

/**
 * The output of one job, windowed (components/jobs/job-lines.ts holds the rules): the tail
 * first over HTTP, then the pages near what the pane shows, never the whole output. Unless
 * the job is final, it then follows the job on the socket.io `/ui` namespace from the last
 * line it has (`afterLine`; server/protocol/ui-messages.ts validates every event before it
 * is used), again after every reconnection from the highest line it has without a gap, so
 * a dropped connection neither loses nor repeats lines. Live chunks fill lines by number
 * (a line already held is a duplicate and is dropped). job:status events go straight into
 * the job's query cache, which the header renders. While the socket is down the tail is
 * polled; once the job is final the tail is read once more and the socket closed.
 */
export function useJobLines(jobId: number, job: { lines: number; final: boolean } | undefined): JobOutputLines {
  const queryClient = useQueryClient();
  // One store per job: another job in the same mounted page starts from nothing.
  const lines = useMemo(() => new JobLines(readLines(jobId)), [jobId]);
  const state = useSyncExternalStore(lines.subscribe, lines.getState, lines.getState);
  const [connection, setConnection] = useState<LiveConnection>("idle");
  const socketRef = useRef<Socket | null>(null);

  const jobLines = job?.lines ?? 0;
  const jobFinal = job?.final ?? false;
  useEffect(() => {
    lines.setJob(jobLines, jobFinal);
  }, [lines, jobLines, jobFinal]);

  // The tail, then the live connection. Runs once per job.
  useEffect(() => {
    let disposed = false;
    lines.start();

    void (async () => {
      try {
        await lines.readTail();
      } catch (cause) {
        // No such job (or not ours), or its output removed by retention (410): nothing to follow either.
        if (cause instanceof ApiError && (cause.status === 404 || cause.status === 403 || cause.status === 410)) return;
        // Otherwise the socket and the polls retry.
      }
      // A finished job gets no more output: the tail read was the last word.
      if (disposed || lines.final) return;

      const socket = io(UI_NAMESPACE, { path: UI_SOCKET_PATH, withCredentials: true });
      socketRef.current = socket;
      setConnection("connecting");
      const follow = () => {
        socket.emit(UiEvents.follow, { v: UI_CONTRACT_VERSION, jobId, afterLine: lines.followCursor } satisfies JobFollow);
      };
      // "connect" fires again after every reconnection: re-follow from where we are.
      socket.on("connect", () => {
        setConnection("live");
        lines.setLive(true);
        follow();
      });
      socket.on("disconnect", (reason) => {
        lines.setLive(false);
        setConnection(reason === "io client disconnect" ? "idle" : "offline");
      });
      socket.on("connect_error", () => {
        lines.setLive(false);
        setConnection("offline");
      });
      socket.on(UiEvents.chunks, (payload: unknown) => {
        const event = jobChunksSchema.safeParse(payload);
        if (event.success && event.data.jobId === jobId) lines.receiveChunks(event.data.chunks);
      });
      socket.on(UiEvents.status, (payload: unknown) => {
        const event = jobStatusMessageSchema.safeParse(payload);
        if (!event.success || event.data.jobId !== jobId) return;
        queryClient.setQueryData(queryKeys.job(jobId), event.data.job);
        void queryClient.invalidateQueries({ queryKey: queryKeys.jobLists() });
        lines.setJob(event.data.job.lines, isFinalStatus(event.data.job.status));
      });
    })();

    return () => {
      disposed = true;
      lines.stop();
      socketRef.current?.close();
      socketRef.current = null;
      setConnection("idle");
    };
  }, [jobId, lines, queryClient]);

  // Once the job is final, read the tail once more (what the socket may not have delivered
  // yet, and the final count) and hang up: nothing more will be written.
  const final = state.final;
  const loaded = state.loaded;
  useEffect(() => {
    if (!final || !loaded || socketRef.current === null) return;
    let cancelled = false;
    void lines
      .readTail()
      .catch(() => undefined)
      .finally(() => {
        if (cancelled) return;
        socketRef.current?.close();
        socketRef.current = null;
        setConnection("idle");
      });
    return () => {
      cancelled = true;
    };
  }, [final, loaded, lines]);

  // Socket down (server restart, proxy without websockets, expired session): keep the
  // output moving by polling the tail until it is back.
  useEffect(() => {
    if (final || connection !== "offline") return;
    const timer = setInterval(() => void lines.readTail().catch(() => undefined), FALLBACK_POLL_MS);
    return () => clearInterval(timer);
  }, [final, connection, lines]);

  return useMemo(
    () => ({ ...state, connection, setView: (first: number, last: number) => lines.setView(first, last) }),
    [state, connection, lines],
  );
}
