import { parseObjectRef } from '../refs.js';
import type { CallRow } from './call.store.js';

/**
 * What the Weave trace server derives for every call it answers with (its `summary.weave`): the status, and the
 * name a trace is shown under. The same rules as the query fields `summary.weave.status` / `trace_name` in
 * call-fields.ts, which compute them in SQL for filters and sorting.
 */
export const CALL_STATUSES = ['success', 'error', 'running', 'descendant_error'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** An exception makes it `error`; no end yet `running`; a descendant that failed (status_counts) `descendant_error`. */
export function callStatusOf(row: Pick<CallRow, 'exception' | 'ended_at' | 'summary'>): CallStatus {
  if (row.exception) return 'error';
  if (!row.ended_at) return 'running';
  const errors = (row.summary as { status_counts?: { error?: unknown } } | null)?.status_counts?.error;
  return typeof errors === 'number' && errors > 0 ? 'descendant_error' : 'success';
}

/**
 * The op's name when the call has no display name: the name inside an op (or object) ref, the op name itself when it
 * is not a ref, null for any other ref or when a display name is set (Weave then shows that instead).
 */
export function traceNameOf(opName: string | null, displayName: string | null): string | null {
  if (displayName || !opName) return null;
  if (!opName.startsWith('weave:///')) return opName;
  return parseObjectRef(opName)?.name ?? null;
}
