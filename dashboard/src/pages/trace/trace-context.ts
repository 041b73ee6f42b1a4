import { createContext, useContext } from 'react';

/** What every part of the trace view shares: where it is, the selected call, the polling tick and the time axis. */
export interface TraceViewContextValue {
  entity: string;
  project: string;
  selected: string | null;
  select(id: string): void;
  /** Increments while the trace runs: every loaded level re-reads its children. */
  tick: number;
  /** The shared time axis of the timeline bars, in epoch milliseconds: the roots' first start to their last end (now while running). */
  span: TimeSpan;
}

export interface TimeSpan {
  startMs: number;
  endMs: number;
}

export const TraceViewContext = createContext<TraceViewContextValue | null>(null);
export const useTraceView = (): TraceViewContextValue => useContext(TraceViewContext)!;

/** The axis over the roots' times; a zero-length trace still gets a 1 ms axis so bars have a width. */
export function spanOf(calls: readonly { startedAt?: string | null; endedAt?: string | null }[], nowMs: number): TimeSpan {
  const starts = calls.map((call) => (call.startedAt ? Date.parse(call.startedAt) : NaN)).filter(Number.isFinite);
  const ends = calls.map((call) => (call.endedAt ? Date.parse(call.endedAt) : call.startedAt ? nowMs : NaN)).filter(Number.isFinite);
  const startMs = starts.length > 0 ? Math.min(...starts) : nowMs;
  const endMs = Math.max(startMs + 1, ...ends);
  return { startMs, endMs };
}

/** Where a call's bar lies on the axis, as percentages of its width (a bar is at least 0.4 % wide, to stay visible). */
export function barOf(call: { startedAt?: string | null; endedAt?: string | null }, span: TimeSpan, nowMs: number): { left: number; width: number } | null {
  if (!call.startedAt) return null;
  const total = span.endMs - span.startMs;
  const start = Math.min(Math.max(Date.parse(call.startedAt), span.startMs), span.endMs);
  const end = Math.min(Math.max(call.endedAt ? Date.parse(call.endedAt) : nowMs, start), span.endMs);
  const left = ((start - span.startMs) / total) * 100;
  return { left, width: Math.min(Math.max(((end - start) / total) * 100, 0.4), 100 - left) };
}
