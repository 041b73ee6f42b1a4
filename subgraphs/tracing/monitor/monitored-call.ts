import { canonicalJson } from '../refs.js';

/** The fields of a call that monitors can filter on and score, besides its key. */
export const MONITORED_CALL_FIELDS = ['op_name', 'parent_id', 'attributes', 'inputs', 'output', 'summary', 'exception'] as const;
export type MonitoredCallField = (typeof MONITORED_CALL_FIELDS)[number];

/**
 * The parts of an ended call that monitors filter on and score. Read from the database, a call holds only the fields
 * its project's monitors read (fieldsRead): the others are left out rather than read and parsed for nothing.
 */
export interface MonitoredCall {
  project_id: string;
  id: string;
  op_name?: string | null;
  parent_id?: string | null;
  attributes?: unknown;
  inputs?: unknown;
  output?: unknown;
  summary?: unknown;
  exception?: string | null;
}

/** A dotted call-field path (`output`, `inputs.expected`, `output.choices.0.message.content`) read from the call; undefined when absent. */
export function callFieldValue(call: MonitoredCall, path: string): unknown {
  const [head, ...rest] = path.split('.');
  let value: unknown = (call as unknown as Record<string, unknown>)[head!];
  for (const key of rest) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The text a check reads: strings as they are, anything else as its JSON (absent: undefined). */
export function textOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** JSON equality, key order aside. */
export function jsonEquals(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The op's name: an op ref (`weave:///e/p/op/name:digest`) names it before the version, a plain op name is itself. */
export function opNameOf(opName: string | null | undefined): string | null {
  if (opName === null || opName === undefined) return null;
  const match = /^weave:\/\/\/[^/]+\/[^/]+\/op\/([^/:]+):/.exec(opName);
  return match ? match[1]! : opName;
}
