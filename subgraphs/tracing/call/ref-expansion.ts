import { sql, type Kysely } from 'kysely';
import type { TracingDatabase } from '../db/database.js';
import { parseObjectRef } from '../refs.js';

/**
 * `expand_columns` of a calls read, as the Weave trace server applies it (clickhouse_trace_server_batched.py
 * `_expand_call_refs`): for each dotted path (`inputs.model`, `output`, `inputs.model.prompt`), shallowest first, a
 * value there that is an object or op ref (`weave:///entity/project/object/Name:digest[/attr/a/key/k/index/0]`) is
 * replaced by the referenced object's value (followed along the ref's own extra path); a JSON object gets
 * `_ref: <the ref>` added unless it has one. Deeper paths see what shallower ones expanded, so `inputs.model.prompt`
 * expands a ref inside the object `inputs.model` pointed at.
 *
 * Left as the ref string, like Weave: refs that resolve to nothing (no such object or digest, a path into it that
 * does not exist, a null value), refs into another project, table refs (`/table/…`) and call refs. Weave's own
 * `refs_read_batch` follows refs met along a ref's extra path; this one stops there and leaves the ref.
 *
 * The lookups are batched: one query per page of calls and path depth, for the distinct refs found at that depth.
 */
export async function expandCallRefs(
  db: Kysely<TracingDatabase>,
  projectId: string,
  calls: Record<string, unknown>[],
  expandColumns: readonly string[],
): Promise<void> {
  const byDepth = new Map<number, string[][]>();
  for (const column of expandColumns) {
    const path = column.split('.');
    byDepth.set(path.length, [...(byDepth.get(path.length) ?? []), path]);
  }
  for (const depth of [...byDepth.keys()].sort((a, b) => a - b)) {
    const found: { call: Record<string, unknown>; path: string[]; ref: string }[] = [];
    for (const call of calls) {
      for (const path of byDepth.get(depth)!) {
        const value = valueAt(call, path);
        if (typeof value === 'string' && refOfProject(value, projectId)) found.push({ call, path, ref: value });
      }
    }
    if (found.length === 0) continue;
    const values = await readRefs(db, projectId, [...new Set(found.map((item) => item.ref))]);
    for (const { call, path, ref } of found) {
      const value = values.get(ref);
      if (value === undefined || value === null) continue;
      // Every place gets its own copy: a deeper path may expand inside it for one call and not for another.
      const copy = structuredClone(value);
      if (isPlainObject(copy) && !('_ref' in copy)) copy._ref = ref;
      setAt(call, path, copy);
    }
  }
}

/** The object/op ref parsed, when it points into this project (Weave does not resolve refs across projects). */
function refOfProject(value: string, projectId: string) {
  const ref = parseObjectRef(value);
  return ref && `${ref.entity}/${ref.project}` === projectId ? ref : null;
}

/** The values the refs point at (after their extra paths); a ref that resolves to nothing is absent from the map. */
async function readRefs(db: Kysely<TracingDatabase>, projectId: string, refs: string[]): Promise<Map<string, unknown>> {
  const parsed = refs.map((ref) => ({ ref, parsed: parseObjectRef(ref)! }));
  const names = parsed.map((item) => item.parsed.name);
  const digests = parsed.map((item) => item.parsed.digest);
  // One statement for the whole set: the (name, digest) pairs are two array parameters zipped by unnest.
  const rows = await sql<{ object_id: string; digest: string; val: unknown }>`
    select o.object_id, o.digest, o.val from tracing.objects o
    join unnest(${names}::text[], ${digests}::text[]) as r(object_id, digest) on o.object_id = r.object_id and o.digest = r.digest
    where o.project_id = ${projectId}`.execute(db);
  const roots = new Map(rows.rows.map((row) => [`${row.object_id}:${row.digest}`, row.val]));
  const values = new Map<string, unknown>();
  for (const { ref, parsed: { name, digest } } of parsed) {
    if (!roots.has(`${name}:${digest}`)) continue;
    const value = followExtra(roots.get(`${name}:${digest}`), extraOf(ref));
    if (value !== undefined) values.set(ref, value);
  }
  return values;
}

/** The `/attr/a/key/k/index/0` pairs after `Name:digest` (URI-decoded), or null when they do not come in pairs. */
function extraOf(ref: string): string[] | null {
  const tail = /^weave:\/\/\/[^/]+\/[^/]+\/(?:object|op)\/[^/]+(\/.*)?$/.exec(ref)?.[1];
  if (!tail) return [];
  const parts = tail.slice(1).split('/').map(decodeURIComponent);
  return parts.length % 2 === 0 ? parts : null;
}

function followExtra(root: unknown, extra: string[] | null): unknown {
  if (extra === null) return undefined;
  let value = root;
  for (let i = 0; i < extra.length; i += 2) {
    const [edge, arg] = [extra[i]!, extra[i + 1]!];
    if ((edge === 'key' || edge === 'attr') && isPlainObject(value)) value = value[arg];
    else if (edge === 'index' && Array.isArray(value) && /^\d+$/.test(arg)) value = value[Number(arg)];
    // A ref met on the way, a table row id (`/id/…`) or an edge that does not fit the value: not resolved here.
    else return undefined;
  }
  return value;
}

/** Weave's get_nested_key: object keys only, the first segment being the call column. */
function valueAt(call: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = call;
  for (const key of path) {
    if (!isPlainObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

function setAt(call: Record<string, unknown>, path: string[], value: unknown): void {
  let parent: Record<string, unknown> = call;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  parent[path[path.length - 1]!] = value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
