import { ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';

/**
 * `columns` and `expand_columns` of a calls read (`/calls/query`, `/calls/stream_query`, `Project.calls`): the one
 * place they are validated and turned into what the store selects. Semantics as the Weave trace server's
 * (clickhouse_trace_server_batched.py `calls_query_stream`, sqlite_trace_server.py `calls_query`):
 * - each entry's first dotted segment names a column (`inputs.x` and `summary.weave.latency_ms` select the whole
 *   `inputs` / `summary`, as Weave does; it does not extract sub-fields);
 * - `id`, `project_id`, `trace_id`, `op_name`, `started_at` are always selected;
 * - `summary` also selects `ended_at`, `exception` and `display_name` (what Weave needs to derive `summary.weave`);
 * - absent or empty `columns`: every column.
 * Unknown columns are a 422 at `["body","columns",i]` (Weave's ClickHouse server refuses them too, with a 403
 * "Field … is not allowed"; this server answers every request-shape problem as a 422, like unknown `sort_by` fields).
 */

/** The Weave CallSchema columns this server stores, with the table column each one reads. */
const STORED_COLUMNS = {
  id: 'id',
  project_id: 'project_id',
  trace_id: 'trace_id',
  op_name: 'op_name',
  started_at: 'started_at',
  parent_id: 'parent_id',
  display_name: 'display_name',
  thread_id: 'thread_id',
  turn_id: 'turn_id',
  ended_at: 'ended_at',
  attributes: 'attributes',
  inputs: 'inputs',
  output: 'output',
  summary: 'summary',
  exception: 'exception',
  otel_dump: 'otel_dump',
  wb_user_id: 'wb_user_id',
  wb_run_id: 'wb_run_id',
  wb_run_step: 'wb_run_step',
} as const;

export type StoredCallColumn = (typeof STORED_COLUMNS)[keyof typeof STORED_COLUMNS];

/** CallSchema columns Weave knows that have nothing stored here (always null); asking for them is not an error. */
const UNSTORED_COLUMNS = ['deleted_at', 'wb_run_step_end', 'storage_size_bytes', 'total_storage_size_bytes'];

const REQUIRED_COLUMNS: StoredCallColumn[] = ['id', 'project_id', 'trace_id', 'op_name', 'started_at'];
const SUMMARY_NEEDS: StoredCallColumn[] = ['ended_at', 'exception', 'display_name'];

/** Columns whose values are JSON documents: the only places `expand_columns` paths may point into. */
const JSON_COLUMNS = ['inputs', 'output', 'attributes', 'summary'];

/** Table columns a read selects; null means every column. */
export type CallProjection = StoredCallColumn[] | null;

/** What a calls read was asked to return, validated. */
export interface CallColumnsRequest {
  projection: CallProjection;
  /** Dotted paths (`inputs.model`, `output`) whose object refs are replaced by the objects' values. */
  expandColumns: string[];
}

/**
 * Validates `columns` and `expand_columns` together (all problems in one 422), for GraphQL and REST alike; `loc` is
 * the place in the REST body.
 */
export function parseCallColumns(columns: readonly string[] | null | undefined, expandColumns: readonly string[] | null | undefined): CallColumnsRequest {
  const issues: ValidationIssue[] = [];
  const selected = new Set<StoredCallColumn>();
  (columns ?? []).forEach((column, index) => {
    const head = column.split('.')[0]!;
    if (column.split('.').some((part) => part === '')) {
      issues.push({ loc: ['body', 'columns', index], msg: `"${column}" has an empty path segment`, type: 'value_error' });
    } else if (head in STORED_COLUMNS) {
      selected.add(STORED_COLUMNS[head as keyof typeof STORED_COLUMNS]);
    } else if (!UNSTORED_COLUMNS.includes(head)) {
      issues.push({
        loc: ['body', 'columns', index],
        msg: `Unknown call column "${head}"; columns are ${[...Object.keys(STORED_COLUMNS), ...UNSTORED_COLUMNS].join(', ')}`,
        type: 'value_error',
      });
    }
  });
  (expandColumns ?? []).forEach((path, index) => {
    const parts = path.split('.');
    if (parts.some((part) => part === '')) {
      issues.push({ loc: ['body', 'expand_columns', index], msg: `"${path}" has an empty path segment`, type: 'value_error' });
    } else if (!JSON_COLUMNS.includes(parts[0]!)) {
      // Refs live in the JSON columns; expanding e.g. op_name would put an object where clients expect a string.
      issues.push({ loc: ['body', 'expand_columns', index], msg: `"${path}" is not in ${JSON_COLUMNS.join(', ')}`, type: 'value_error' });
    }
  });
  if (issues.length > 0) throw new ValidationFailedError(issues);

  let projection: CallProjection = null;
  if (columns && columns.length > 0) {
    for (const column of REQUIRED_COLUMNS) selected.add(column);
    if (selected.has('summary')) for (const column of SUMMARY_NEEDS) selected.add(column);
    projection = [...selected];
  }
  return { projection, expandColumns: [...new Set(expandColumns ?? [])] };
}

/** Whether a read with these `columns` returns the summary (and so what Weave derives into it). */
export function readsSummary(columns: readonly string[] | null | undefined): boolean {
  return !columns || columns.length === 0 || columns.some((column) => column.split('.')[0] === 'summary');
}
