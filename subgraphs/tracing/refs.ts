import { createHash } from 'node:crypto';

/**
 * Digests and refs of the Weave trace server. A digest is sha256 → URL-safe base64 with `-`→`X`, `_`→`Y` and no
 * padding (so it is alphanumeric); JSON values are digested in a canonical form (sorted keys, no spaces), so the
 * same value always gets the same digest whatever the key order the client sent.
 */
export function digestOfBytes(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('base64url').replace(/-/g, 'X').replace(/_/g, 'Y');
}

export function digestOfJson(value: unknown): string {
  return digestOfBytes(canonicalJson(value));
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export interface ProjectName {
  entity: string;
  project: string;
  /** "entity/project", the Weave project id. */
  id: string;
}

export function parseProjectId(projectId: string): ProjectName | null {
  const match = /^([^/]+)\/([^/]+)$/.exec(projectId);
  return match ? { entity: match[1]!, project: match[2]!, id: projectId } : null;
}

export interface ObjectRef {
  entity: string;
  project: string;
  kind: 'object' | 'op';
  name: string;
  digest: string;
}

/** `weave:///{entity}/{project}/object/{name}:{digest}` (or `/op/`). */
export function parseObjectRef(ref: string): ObjectRef | null {
  const match = /^weave:\/\/\/([^/]+)\/([^/]+)\/(object|op)\/([^/:]+):([^/:]+)(?:\/.*)?$/.exec(ref);
  if (!match) return null;
  return { entity: match[1]!, project: match[2]!, kind: match[3] as 'object' | 'op', name: match[4]!, digest: match[5]! };
}

/**
 * The project a `weave:///{entity}/{project}/…` ref points into, as "entity/project"; `undefined` for a value that
 * is not a weave ref at all (stored as given), `null` for a weave ref without an entity and a project.
 */
export function projectIdOfWeaveRef(ref: string): string | null | undefined {
  if (!ref.startsWith('weave:///')) return undefined;
  const match = /^weave:\/\/\/([^/]+)\/([^/]+)\/[^/]/.exec(ref);
  return match ? `${match[1]}/${match[2]}` : null;
}

/** The object name inside a ref, or null when the value is not an object/op ref. */
export function objectNameOfRef(ref: string | null | undefined): string | null {
  return ref ? (parseObjectRef(ref)?.name ?? null) : null;
}

/** The second-to-last path segment of a ref (`…/agent_turn/<id>` → `agent_turn`). */
export function spanTypeOfRef(ref: string): string | null {
  const parts = ref.replace(/^weave:\/\/\//, '').split('/');
  return parts.length >= 2 ? parts[parts.length - 2]! : null;
}

export function callRef(projectId: string, callId: string): string {
  return `weave:///${projectId}/call/${callId}`;
}
