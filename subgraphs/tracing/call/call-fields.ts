import { sql } from 'kysely';
import { asNumber, jsonAt, type FieldCatalog, type SqlValue } from '../query/query-sql.js';

/**
 * The fields of a call that `$getField` and `sort_by` may name (Weave's CallSchema): columns, dotted paths into
 * the JSON columns (`inputs.x`, `output.score`, `attributes.a.b`, `summary.usage.total_tokens`; a numeric part
 * also indexes arrays), the values Weave computes under `summary.weave.*`, and `feedback.[type].payload.path`
 * (the newest feedback of that type on the call; `[*]` for any type). Column names are qualified with the table,
 * so the feedback subquery can refer to the outer call.
 */
const TEXT_COLUMNS = ['id', 'project_id', 'trace_id', 'parent_id', 'op_name', 'display_name', 'thread_id', 'turn_id', 'exception', 'wb_user_id', 'wb_run_id'];
const TIMESTAMP_COLUMNS = ['started_at', 'ended_at'];
const JSON_COLUMNS = ['inputs', 'output', 'attributes', 'summary'];

const column = (name: string) => sql.ref(`calls.${name}`);

/** `summary.weave.*`: what the Weave server derives for each call. */
const WEAVE_SUMMARY: Record<string, () => SqlValue> = {
  status: () => ({
    kind: 'text',
    sql: sql`(case when ${column('exception')} is not null then 'error'
      when coalesce(${asNumber(jsonAt(column('summary'), ['status_counts', 'error']))}, 0) > 0 then 'descendant_error'
      when ${column('ended_at')} is null then 'running' else 'success' end)`,
    // 'error' is exactly "has an exception": the partial index calls_errors serves the traces list's status filter.
    equalsLiteral: (value) => (value === 'error' ? sql`(${column('exception')} is not null)` : undefined),
  }),
  latency_ms: () => ({
    kind: 'number',
    sql: sql`(extract(epoch from (${column('ended_at')} - ${column('started_at')})) * 1000)::double precision`,
  }),
  trace_name: () => ({
    kind: 'text',
    sql: sql`(case when coalesce(${column('display_name')}, '') <> '' then ${column('display_name')}
      when ${column('op_name')} like 'weave:///%' then substring(${column('op_name')} from '/([^/:]*):')
      else ${column('op_name')} end)`,
  }),
};

const FIELD_LIST = [...TEXT_COLUMNS, ...TIMESTAMP_COLUMNS, 'wb_run_step', ...JSON_COLUMNS.map((name) => `${name}.*`), 'summary.weave.(status|latency_ms|trace_name)', 'feedback.[type].payload.*'];

function unknown(field: string): { error: string } {
  return { error: `Unknown call field "${field}"; fields are ${FIELD_LIST.join(', ')}` };
}

export const callFields: FieldCatalog = {
  resolve(field) {
    if (TEXT_COLUMNS.includes(field)) return { kind: 'text', sql: column(field) };
    if (TIMESTAMP_COLUMNS.includes(field)) return { kind: 'timestamp', sql: column(field) };
    if (field === 'wb_run_step') return { kind: 'number', sql: sql`${column(field)}::double precision` };
    // Calls are never deleted here; the Weave UI still filters on it.
    if (field === 'deleted_at') return { kind: 'timestamp', sql: sql`null::timestamptz` };
    if (field.startsWith('summary.weave.')) {
      const derived = WEAVE_SUMMARY[field.slice('summary.weave.'.length)];
      return derived ? derived() : { error: `Unknown field "${field}"; summary.weave has ${Object.keys(WEAVE_SUMMARY).join(', ')}` };
    }
    if (field.startsWith('feedback.')) return feedbackField(field);
    const [head, ...path] = field.split('.');
    if (JSON_COLUMNS.includes(head!)) {
      if (path.some((part) => part === '')) return { error: `"${field}" has an empty path segment` };
      return jsonAt(column(head!), path);
    }
    return unknown(field);
  },
};

/**
 * `feedback.[type].payload.path`, `feedback.[type].runnable_ref`, `feedback.[type].trigger_ref`: the newest
 * feedback of that type (any type for `[*]`) attached to the call (`weave_ref` = the call's ref), read through the
 * (project_id, weave_ref) index of the feedback table.
 */
function feedbackField(field: string): SqlValue | { error: string } {
  const match = /^feedback\.\[(.+)\]\.(payload(?:\.(.+))?|runnable_ref|trigger_ref)$/.exec(field);
  if (!match) return { error: `"${field}" is not a feedback field; use feedback.[<type>].payload.<path>, feedback.[<type>].runnable_ref or feedback.[<type>].trigger_ref` };
  const [, type, target, path] = match;
  const parts = path ? path.split('.') : [];
  if (parts.some((part) => part === '')) return { error: `"${field}" has an empty path segment` };
  const value = target!.startsWith('payload') ? sql`f.payload #> ${parts}::text[]` : sql.ref(`f.${target}`);
  const ofType = type === '*' ? sql`` : sql`and f.feedback_type = ${type}`;
  const subquery = sql`(select ${value} from tracing.feedback f
    where f.project_id = ${column('project_id')} and f.weave_ref = 'weave:///' || ${column('project_id')} || '/call/' || ${column('id')} ${ofType}
    order by f.created_ms desc, f.id desc limit 1)`;
  return target!.startsWith('payload') ? { kind: 'json', sql: subquery } : { kind: 'text', sql: subquery };
}
