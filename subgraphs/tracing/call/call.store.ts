import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely';
import { INFERENCE_COMPLETIONS_EVENT } from '../../../platform/events/contracts.js';
import type { CallKind, CallsTable, TracingDatabase } from '../db/database.js';
import { orderByFields } from '../query/query-request.js';
import type { SortDirection } from '../query/query-sql.js';
import { callFields } from './call-fields.js';
import type { CallProjection, StoredCallColumn } from './call-columns.js';

type Db = Kysely<TracingDatabase> | Transaction<TracingDatabase>;

/** A call start as stored; `trace_id` null means "the parent's trace, or `fallback_trace_id` for a root". */
export interface CallStartRow {
  project_id: string;
  id: string;
  trace_id: string | null;
  fallback_trace_id: string;
  parent_id: string | null;
  op_name: string;
  display_name: string | null;
  thread_id: string | null;
  turn_id: string | null;
  started_at: string;
  attributes: unknown;
  inputs: unknown;
  otel_dump: unknown;
  wb_user_id: string | null;
  wb_run_id: string | null;
  wb_run_step: number | null;
  kind: CallKind;
}

export interface CallEndRow {
  project_id: string;
  id: string;
  ended_at: string;
  output: unknown;
  summary: unknown;
  exception: string | null;
}

export type CallRow = Omit<CallsTable, 'kind' | 'created_at'> & { kind: CallKind; created_at: Date };

/** Every list is "any of"; absent or empty lists do not filter. */
export interface CallsFilterInput {
  /** Exact op names, or `<op ref without version>:*` for every version of an op. */
  opNames?: string[] | null;
  /** Calls whose inputs (outputs) contain one of these refs as a string value, at any depth. */
  inputRefs?: string[] | null;
  outputRefs?: string[] | null;
  parentIds?: string[] | null;
  traceIds?: string[] | null;
  callIds?: string[] | null;
  threadIds?: string[] | null;
  turnIds?: string[] | null;
  wbUserIds?: string[] | null;
  wbRunIds?: string[] | null;
  traceRootsOnly?: boolean | null;
  kinds?: CallKind[] | null;
  /** Scores of one prediction (evaluation API). */
  scoredPredictionId?: string | null;
}

/** Any field of the call field catalog (call-fields.ts): a column, a JSON path, `summary.weave.*`, feedback. */
export interface CallSort {
  field: string;
  direction: SortDirection;
}

/** What selects calls: the CallsFilter lists and the compiled `query` expression, both must hold. */
export interface CallsSelection {
  filter: CallsFilterInput;
  condition?: RawBuilder<SqlBool> | null;
  /**
   * The condition holds a full-text match (call-search.ts): a page is then read from the matching calls, found
   * through the search index, rather than by walking the calls in sort order and testing each.
   */
  fullText?: boolean;
}

/** A start row's columns in a `jsonb_to_recordset` definition. */
const START_RECORD = sql`project_id text, id text, trace_id text, fallback_trace_id text, parent_id text, op_name text,
  display_name text, thread_id text, turn_id text, started_at timestamptz, attributes jsonb, inputs jsonb,
  otel_dump jsonb, wb_user_id text, wb_run_id text, wb_run_step integer, kind text`;
/** An end row's columns besides its key. */
const END_RECORD = sql`ended_at timestamptz, output jsonb, summary jsonb, exception text`;
const END_COLUMNS = sql`ended_at, output, summary, exception`;
/** The start columns a later start may fill (everything but the key and the kind). */
const LATER_START_FILLS = ['trace_id', 'parent_id', 'op_name', 'display_name', 'thread_id', 'turn_id', 'started_at', 'attributes', 'inputs', 'otel_dump', 'wb_user_id', 'wb_run_id', 'wb_run_step'];
/** A start fills only the start columns no earlier start stored (first write wins). */
const KEEP_EARLIER_START = sql.join(LATER_START_FILLS.map((column) => sql`${sql.id(column)} = coalesce(c.${sql.id(column)}, excluded.${sql.id(column)})`));
/** An end's columns are this end's. */
const TAKE_THIS_END = sql`ended_at = excluded.ended_at, output = excluded.output, summary = excluded.summary, exception = excluded.exception`;

/**
 * Upserts starts (with `withEnds`, finished calls: their end columns too), one statement whatever the batch. A call
 * without a trace id takes its parent's trace when the parent is stored, else its generated one.
 */
function upsertStarts(rows: CallStartRow[], withEnds: boolean) {
  const ends = (fragment: RawBuilder<unknown>) => (withEnds ? sql`, ${fragment}` : sql``);
  return sql<{ project_id: string; id: string; trace_id: string; ended: boolean }>`
    with v as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(${START_RECORD}${ends(END_RECORD)})
    )
    insert into tracing.calls as c (project_id, id, trace_id, parent_id, op_name, display_name, thread_id, turn_id,
      started_at, attributes, inputs, otel_dump, wb_user_id, wb_run_id, wb_run_step, kind${ends(END_COLUMNS)})
    select v.project_id, v.id, coalesce(v.trace_id, p.trace_id, v.fallback_trace_id), v.parent_id, v.op_name,
      v.display_name, v.thread_id, v.turn_id, v.started_at, v.attributes, v.inputs, v.otel_dump, v.wb_user_id,
      v.wb_run_id, v.wb_run_step, v.kind${ends(sql`v.ended_at, v.output, v.summary, v.exception`)}
    from v left join tracing.calls p on p.project_id = v.project_id and p.id = v.parent_id
    on conflict (project_id, id) do update set ${KEEP_EARLIER_START}${ends(TAKE_THIS_END)}
    returning c.project_id, c.id, c.trace_id, c.ended_at is not null as ended`;
}

/** A call's key in maps of a batch: calls are unique per project and id. */
export const callKey = (projectId: string, id: string) => `${projectId}\u0000${id}`;

/** Trace ids by callKey of the rows an upsert of starts returned. */
function traceIdsOf(rows: { project_id: string; id: string; trace_id: string }[]): Map<string, string> {
  return new Map(rows.map((row) => [callKey(row.project_id, row.id), row.trace_id]));
}

/**
 * Kysely/SQL of the calls table. Multi-row writes go through `jsonb_to_recordset`, so a batch of any size is one
 * statement with one parameter. A start never replaces what an earlier start stored (first write wins, so a
 * retried start does not create or change a call); it fills the start columns of a row that an end created first.
 */
export const callStore = {
  async insertStarts(db: Db, rows: CallStartRow[]): Promise<Map<string, string>> {
    return (await this.insertStartsNotingEnds(db, rows)).traceIds;
  },

  /**
   * insertStarts, also saying which of the calls had their end recorded already (`ended`): an end that arrived before
   * its start (or a start sent again after the end). Such a start completes the call, which monitors then score.
   */
  async insertStartsNotingEnds(db: Db, rows: CallStartRow[]): Promise<{ traceIds: Map<string, string>; ended: { project_id: string; id: string }[] }> {
    if (rows.length === 0) return { traceIds: new Map(), ended: [] };
    const written = (await upsertStarts(rows, false).execute(db)).rows;
    return { traceIds: traceIdsOf(written), ended: written.filter((row) => row.ended).map(({ project_id, id }) => ({ project_id, id })) };
  },

  /**
   * Calls that arrive finished (start and end at once, one row per call): one statement that does what
   * `insertStarts` then `applyEnds` would (the start columns never replace an earlier start's, the end columns are
   * this end's) while writing each row once instead of inserting and then updating it — the calls of traced
   * inference completions arrive this way, hundreds a second, and so do ended calls of the evaluation API. Resolves
   * with the stored trace ids by callKey, as insertStarts does.
   */
  async insertCompleted(db: Db, rows: (CallStartRow & CallEndRow)[]): Promise<Map<string, string>> {
    if (rows.length === 0) return new Map();
    return traceIdsOf((await upsertStarts(rows, true).execute(db)).rows);
  },

  /**
   * Traced inference completions as finished calls of their projects, written as `insertCompleted` writes calls,
   * straight from their platform events' outbox rows (`eventRows`; payload: InferenceCompletionsPayload, or an
   * earlier version's InferenceCompletionPayload): under load
   * they arrive by the hundred a second, and reading each payload out of the database only to send it back as a
   * parameter cost more than the write itself. Their callers were authorized when the completions were served; the
   * caller's user id becomes the call's wb_user_id. The payloads are the platform's own (built by the inference
   * subgraph, already made storable when published), so they are not validated again as a client's calls are; one the
   * database cannot store as a call (a date that is none) fails the statement with a data exception, as a bad
   * parameter row would, and the consumer then writes that event's calls one at a time (`only`: the call at that
   * 1-based position of the event) and dead-letters the one that fails.
   */
  async insertInferenceCompletions(db: Db, events: RawBuilder<unknown>, only?: { position: number }): Promise<void> {
    await sql`
      with batches as materialized (
        -- each event's payload read once: an event carries a batch of calls (one, from earlier versions), and its
        -- payload is stored compressed, so every reference to it would decompress all of it again
        select e.id as event_id, e.entity || '/' || e.project as project_id, e.payload ->> 'author_id' as author_id,
          case when e.type = ${INFERENCE_COMPLETIONS_EVENT} then e.payload -> 'calls' else jsonb_build_array(e.payload -> 'call') end as calls
        from ${events} as e
      ), completed as (
        -- one row per call even if its event was published twice (a write retried after its commit was not heard)
        select distinct on (project_id, id) b.project_id, c.call ->> 'id' as id, b.author_id, c.call
        from batches as b cross join lateral jsonb_array_elements(b.calls) with ordinality as c(call, position)
        ${only ? sql`where c.position = ${only.position}` : sql``}
        order by project_id, id, b.event_id desc, c.position desc
      )
      insert into tracing.calls as c (project_id, id, trace_id, op_name, started_at, attributes, inputs, wb_user_id, kind, ${END_COLUMNS})
      select project_id, id, call ->> 'trace_id', call ->> 'op_name', (call ->> 'started_at')::timestamptz, call -> 'attributes',
        call -> 'inputs', author_id, 'call', (call ->> 'ended_at')::timestamptz,
        -- JSON null and "no output" are both stored as SQL NULL (toEndRow); a finished call has a summary
        nullif(call -> 'output', 'null'::jsonb), coalesce(call -> 'summary', '{}'::jsonb), call ->> 'exception'
      from completed
      on conflict (project_id, id) do update set ${KEEP_EARLIER_START}, ${TAKE_THIS_END}`.execute(db);
  },

  /** How many calls an event of traced completions carries (1 for an event of earlier versions). */
  async inferenceCompletionCount(db: Db, events: RawBuilder<unknown>): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      select coalesce(sum(case when e.type = ${INFERENCE_COMPLETIONS_EVENT} then jsonb_array_length(e.payload -> 'calls') else 1 end), 0)::int as n
      from ${events} as e`.execute(db);
    return rows[0]?.n ?? 0;
  },

  /** Ends fill the end columns; an end that arrives before its start creates the row the start completes. */
  async applyEnds(db: Db, rows: CallEndRow[]): Promise<void> {
    if (rows.length === 0) return;
    await sql`
      insert into tracing.calls as c (project_id, id, ${END_COLUMNS})
      select v.project_id, v.id, v.ended_at, v.output, v.summary, v.exception
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(project_id text, id text, ${END_RECORD})
      on conflict (project_id, id) do update set ${TAKE_THIS_END}`.execute(db);
  },

  async traceIdsOf(db: Db, projectId: string, ids: string[]): Promise<Map<string, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await db.selectFrom('calls').select(['id', 'trace_id']).where('project_id', '=', projectId).where('id', 'in', ids).execute();
    return new Map(rows.map((row) => [row.id, row.trace_id]));
  },

  async updateDisplayName(db: Db, projectId: string, id: string, displayName: string): Promise<boolean> {
    const result = await db
      .updateTable('calls')
      .set({ display_name: displayName })
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async finish(db: Db, projectId: string, id: string, output: unknown): Promise<boolean> {
    const result = await db
      .updateTable('calls')
      .set({ ended_at: new Date(), output: JSON.stringify(output) as never, summary: '{}' as never })
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async read(db: Db, projectId: string, id: string): Promise<CallRow | undefined> {
    return (await db.selectFrom('calls').select(ROW_COLUMNS).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()) as
      | CallRow
      | undefined;
  },

  /**
   * A page of calls. With a projection only those columns (and the always-small `kind`, `created_at`) are read, so
   * large JSON columns nobody asked for never leave PostgreSQL; the others are null in the rows returned.
   */
  async query(
    db: Db,
    projectId: string,
    selection: CallsSelection,
    sort: CallSort[],
    limit: number,
    offset: number,
    projection: CallProjection = null,
  ): Promise<CallRow[]> {
    const columns: (StoredCallColumn | 'kind' | 'created_at')[] = projection ? [...projection, 'kind', 'created_at'] : ROW_COLUMNS;
    let query = selection.fullText
      ? // OFFSET 0 keeps the matching calls a subquery of their own, which the planner reads through the GIN index.
        // Flattened, it would rather walk the start index in sort order and test every call until a page is full: a
        // guess that pays for common words and, for the rare word a search usually is, reads every call.
        (db.selectFrom(selectCalls(db, projectId, selection).select(ROW_COLUMNS).offset(0).as('calls')).select(columns as never) as unknown as ReturnType<typeof pageOf>)
      : pageOf(selectCalls(db, projectId, selection), columns);
    for (const term of orderByFields(callFields, sort)) {
      query = query.orderBy(term.sql, (ob) => (term.direction === 'asc' ? ob.asc().nullsLast() : ob.desc().nullsLast()));
    }
    query = query.orderBy('id', 'asc');
    const rows = (await query.limit(limit).offset(offset).execute()) as CallRow[];
    return projection ? rows.map(withUnselectedAsNull) : rows;
  },

  /** How many calls the selection holds; with `upTo`, counting stops there (a bounded read however many match). */
  async count(db: Db, projectId: string, selection: CallsSelection = { filter: {} }, upTo?: number): Promise<number> {
    if (upTo !== undefined) {
      const bounded = selectCalls(db, projectId, selection).select(sql<number>`1`.as('one')).limit(upTo);
      const row = await db.selectFrom(bounded.as('counted')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    }
    const row = await selectCalls(db, projectId, selection)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};

const ALL_COLUMNS: StoredCallColumn[] = [
  'id', 'project_id', 'trace_id', 'op_name', 'started_at', 'parent_id', 'display_name', 'thread_id', 'turn_id', 'ended_at',
  'attributes', 'inputs', 'output', 'summary', 'exception', 'otel_dump', 'wb_user_id', 'wb_run_id', 'wb_run_step',
];

/**
 * What a read of whole calls selects: every column but the search vector (derived, and as large as the text it
 * indexes), so never `select *`.
 */
const ROW_COLUMNS: (StoredCallColumn | 'kind' | 'created_at')[] = [...ALL_COLUMNS, 'kind', 'created_at'];

/** A projected row with every column present: what was not selected is null, as Weave answers it. */
function withUnselectedAsNull(row: CallRow): CallRow {
  const complete = { ...row } as Record<string, unknown>;
  for (const column of ALL_COLUMNS) if (!(column in complete)) complete[column] = null;
  return complete as CallRow;
}

/** The columns of a page (a plain selection; `query` may read the same columns from a subquery). */
function pageOf(calls: SelectQueryBuilder<TracingDatabase, 'calls', object>, columns: (StoredCallColumn | 'kind' | 'created_at')[]) {
  return calls.select(columns);
}

/** The calls of a project that the filter and the condition select. */
function selectCalls(db: Db, projectId: string, { filter, condition }: CallsSelection): SelectQueryBuilder<TracingDatabase, 'calls', object> {
  let query = db.selectFrom('calls').where('project_id', '=', projectId);
  // One array parameter per list, so a list of any length fits PostgreSQL's 65,535 parameters.
  const anyOf = (column: 'parent_id' | 'trace_id' | 'id' | 'thread_id' | 'turn_id' | 'wb_user_id' | 'wb_run_id' | 'kind', values?: string[] | null) => {
    if (values && values.length > 0) query = query.where(sql<SqlBool>`${sql.ref(column)} = any(${values}::text[])`);
  };
  anyOf('parent_id', filter.parentIds);
  anyOf('trace_id', filter.traceIds);
  anyOf('id', filter.callIds);
  anyOf('thread_id', filter.threadIds);
  anyOf('turn_id', filter.turnIds);
  anyOf('wb_user_id', filter.wbUserIds);
  anyOf('wb_run_id', filter.wbRunIds);
  anyOf('kind', filter.kinds);
  if (filter.opNames && filter.opNames.length > 0) query = query.where(opNameCondition(filter.opNames));
  if (filter.inputRefs && filter.inputRefs.length > 0) query = query.where(containsRef(sql.ref('inputs'), filter.inputRefs));
  if (filter.outputRefs && filter.outputRefs.length > 0) query = query.where(containsRef(sql.ref('output'), filter.outputRefs));
  if (filter.traceRootsOnly) query = query.where('parent_id', 'is', null);
  if (filter.scoredPredictionId) {
    query = query.where(sql`attributes->'_weave_eval_meta'->>'prediction_id'`, '=', filter.scoredPredictionId);
  }
  if (condition) query = query.where(condition);
  return query;
}

/** Weave's op name wildcard: `weave:///e/p/op/name:*` is every version of that op (a prefix up to the colon). */
export const OP_VERSION_WILDCARD = ':*';

function opNameCondition(opNames: string[]): RawBuilder<SqlBool> {
  const exact = opNames.filter((name) => !name.endsWith(OP_VERSION_WILDCARD));
  const prefixes = opNames.filter((name) => name.endsWith(OP_VERSION_WILDCARD)).map((name) => name.slice(0, -1));
  const parts = [
    ...(exact.length > 0 ? [sql`op_name = any(${exact}::text[])`] : []),
    ...prefixes.map((prefix) => sql`starts_with(op_name, ${prefix})`),
  ];
  return sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
}

/**
 * A ref "in" inputs or output is a string value equal to it anywhere in the JSON (as Weave extracts input_refs and
 * output_refs: every string of the value, at any depth, that is a ref). The refs are a parameter; the jsonpath is fixed.
 */
function containsRef(column: RawBuilder<unknown>, refs: string[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from unnest(${refs}::text[]) as r(ref)
    where jsonb_path_exists(${column}, '$.** ? (@ == $ref)', jsonb_build_object('ref', r.ref)))`;
}
