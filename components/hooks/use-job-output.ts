"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { io, type Socket } from "socket.io-client";
import { ApiError, apiFetch } from "@/components/api/client";
import { type OutputChunk, type OutputPage } from "@/components/api/types";
import { mergeChunks, type OutputBlock } from "@/components/jobs/output-blocks";
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

const PAGE_LIMIT = 1000;
/** While the socket is down and the job is live, the output is polled this often instead. */
const FALLBACK_POLL_MS = 3000;

export type LiveConnection = "idle" | "connecting" | "live" | "offline";

export interface JobOutput {
  blocks: OutputBlock[];
  /** The first read of the stored output is over (successful or not). */
  loaded: boolean;
  error: unknown;
  connection: LiveConnection;
}

/**
 * The output of one job: first every stored chunk over HTTP, page by page, then live from
 * the socket.io `/ui` namespace (server/protocol/ui-messages.ts, which also validates every
 * event before it is used). Every chunk carries a seq: a seq already shown is a
 * duplicate (HTTP pages, the server's catch-up and live delivery overlap on purpose) and is
 * dropped; an older unseen one is put in its place (see mergeChunks). On (re)connect the
 * job is followed again from the highest seq, so a dropped connection neither loses nor
 * repeats lines. job:status events go straight into the job's query cache, which is what
 * the header renders.
 */
export function useJobOutput(jobId: number, jobFinal: boolean): JobOutput {
  const queryClient = useQueryClient();
  const [blocks, setBlocks] = useState<OutputBlock[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [connection, setConnection] = useState<LiveConnection>("idle");
  // Another job in the same mounted page starts from nothing (React's "reset state when a prop
  // changes": during render, not in an effect, so no frame shows the old job's lines).
  const [shownJobId, setShownJobId] = useState(jobId);
  if (shownJobId !== jobId) {
    setShownJobId(jobId);
    setBlocks([]);
    setLoaded(false);
    setError(null);
  }
  // The "after" of the next request or follow: the highest seq seen. A ref because state
  // updates are async and the socket handlers need the value now.
  const lastSeq = useRef(0);
  const socketRef = useRef<Socket | null>(null);
  const jobFinalRef = useRef(jobFinal);
  useEffect(() => {
    jobFinalRef.current = jobFinal;
  }, [jobFinal]);

  const append = useCallback((chunks: OutputChunk[]) => {
    if (chunks.length === 0) return;
    for (const chunk of chunks) lastSeq.current = Math.max(lastSeq.current, chunk.seq);
    setBlocks((current) => mergeChunks(current, chunks));
  }, []);

  /** Reads stored output after the last seq until nothing more is there. */
  const catchUp = useCallback(
    async (signal: AbortSignal) => {
      for (;;) {
        const page = await apiFetch<OutputPage>(`/api/jobs/${jobId}/output?after=${lastSeq.current}&limit=${PAGE_LIMIT}`, { signal });
        append(page.chunks);
        // A page that is not full is the end of what is stored right now.
        if (page.chunks.length < PAGE_LIMIT) break;
      }
      setError(null);
    },
    [jobId, append],
  );

  // Stored output, then the live connection. Runs once per job.
  useEffect(() => {
    const controller = new AbortController();
    let disposed = false;
    lastSeq.current = 0;

    void (async () => {
      try {
        await catchUp(controller.signal);
      } catch (cause) {
        if (controller.signal.aborted) return;
        setError(cause);
        // No such job (or not ours): there is nothing to follow either.
        if (cause instanceof ApiError && (cause.status === 404 || cause.status === 403)) return;
      }
      // Even after a failed first read: the socket's follow from seq 0 and the later
      // catch-ups retry it, so the pane is not stuck on the error.
      setLoaded(true);
      // A finished job gets no more output: the stored pages were all of it.
      if (disposed || jobFinalRef.current) return;

      const socket = io(UI_NAMESPACE, { path: UI_SOCKET_PATH, withCredentials: true });
      socketRef.current = socket;
      setConnection("connecting");
      const follow = () => {
        socket.emit(UiEvents.follow, { v: UI_CONTRACT_VERSION, jobId, after: lastSeq.current } satisfies JobFollow);
      };
      // "connect" fires again after every reconnection: re-follow from where we are.
      socket.on("connect", () => {
        setConnection("live");
        follow();
      });
      socket.on("disconnect", (reason) => setConnection(reason === "io client disconnect" ? "idle" : "offline"));
      socket.on("connect_error", () => setConnection("offline"));
      socket.on(UiEvents.chunks, (payload: unknown) => {
        const event = jobChunksSchema.safeParse(payload);
        if (event.success && event.data.jobId === jobId) append(event.data.chunks);
      });
      socket.on(UiEvents.status, (payload: unknown) => {
        const event = jobStatusMessageSchema.safeParse(payload);
        if (!event.success || event.data.jobId !== jobId) return;
        queryClient.setQueryData(queryKeys.job(jobId), event.data.job);
        void queryClient.invalidateQueries({ queryKey: queryKeys.jobLists() });
      });
    })();

    return () => {
      disposed = true;
      controller.abort();
      socketRef.current?.close();
      socketRef.current = null;
      setConnection("idle");
    };
  }, [jobId, catchUp, append, queryClient]);

  // Once the job is final, fetch whatever the socket may not have delivered yet and hang
  // up: nothing more will be written.
  useEffect(() => {
    if (!jobFinal || !loaded) return;
    const controller = new AbortController();
    void catchUp(controller.signal)
      .catch(() => undefined)
      .finally(() => {
        if (controller.signal.aborted) return;
        socketRef.current?.close();
        socketRef.current = null;
        setConnection("idle");
      });
    return () => controller.abort();
  }, [jobFinal, loaded, catchUp]);

  // Socket down (server restart, proxy without websockets, expired session): keep the
  // output moving by polling until it is back.
  useEffect(() => {
    if (jobFinal || connection !== "offline") return;
    const controller = new AbortController();
    const timer = setInterval(() => void catchUp(controller.signal).catch(() => undefined), FALLBACK_POLL_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [jobFinal, connection, catchUp]);

  return { blocks, loaded, error, connection };
}
