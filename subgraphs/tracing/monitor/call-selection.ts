import { createHash } from 'node:crypto';
import { jsonEquals, opNameOf, type MonitoredCall } from './monitored-call.js';

/** A monitor's call filter as stored (defaults applied). */
export interface MonitorCallFilter {
  op_names: string[];
  attributes: Record<string, unknown>;
  roots_only: boolean;
}

/** Whether the call is one the monitor looks at: its op (by ref or name), its attributes, root or not. */
export function matchesFilter(filter: MonitorCallFilter, call: MonitoredCall): boolean {
  if (filter.roots_only && (call.parent_id ?? null) !== null) return false;
  if (filter.op_names.length > 0) {
    const name = opNameOf(call.op_name);
    if (!filter.op_names.some((wanted) => wanted === (call.op_name ?? null) || opNameOf(wanted) === name)) return false;
  }
  const attributes = (call.attributes ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(filter.attributes)) {
    if (!(key in attributes) || !jsonEquals(attributes[key], value)) return false;
  }
  return true;
}

/**
 * Whether the monitor samples the call: a hash of (monitor, call) read as a number in [0, 1) under the rate. The same
 * pair always gets the same answer, so a redelivered event, a second process or a backfill decide as the first did,
 * and different monitors sample independently.
 */
export function isSampled(monitorId: string, callId: string, rate: number): boolean {
  if (rate >= 1) return true;
  const digest = createHash('sha256').update(monitorId).update('\u0000').update(callId).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < rate;
}
