import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { uuidv7 } from '../../../platform/uuidv7.js';
import { NotFoundError, ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { CallKind, TracingDatabase } from '../db/database.js';
import { compileQueryRequest, type SortByInput } from '../query/query-request.js';
import { parseProjectId } from '../refs.js';
import { parseIsoDateTime } from '../schema-helpers.js';
import { parseCallColumns } from './call-columns.js';
import { callFields } from './call-fields.js';
import { compileCallSearch } from './call-search.js';
import {
  CallEndBody,
  CallStartBody,
  CompletedCallSchema,
  type CallBatchBody,
  type CallEnd,
  type CallStart,
  type CompletedCallsBody,
} from './call.schemas.js';
import { callKey, callStore, type CallEndRow, type CallSort, type CallStartRow, type CallsFilterInput } from './call.store.js';
import type { EndedCallsPublisher } from '../monitor/ended-calls-publisher.js';
import { expandCallRefs } from './ref-expansion.js';
import { CallEndBatcher } from './end-batcher.js';
import { CallStartBatcher } from './start-batcher.js';

/** Throws unless the caller may write to the entity (team member); given by the resolver from its context. */
export type AssertWriter = (entity: string) => void;

/** Everything a write needs to know about its caller. */
export interface Writer {
  userId: string;
  assertWriter: AssertWriter;
}

/**
 * Call ingestion and reads. Every write is one statement or one transaction: a rejected request (or batch)
 * changes nothing, because all of it is validated and authorized before the first row is written.
 */
export class CallService {
  private readonly batcher: CallStartBatcher;
  private readonly endBatcher: CallEndBatcher;

  /** `endedCalls`: publishes the ends written for projects with an active monitor (none: monitors never hear of calls). */
  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly endedCalls?: EndedCallsPublisher,
  ) {
    this.batcher = new CallStartBatcher(db, endedCalls);
    this.endBatcher = new CallEndBatcher(db, endedCalls);
  }

  async start(writer: Writer, body: unknown): Promise<{ id: string; trace_id: string }> {
    const { start } = validateOrThrow(CallStartBody, body, 'body');
    const row = toStartRow(start, writer, ['body', 'start']);
    authorizeProjects(writer, [row.project_id]);
    const traceId = await this.batcher.start(row, writer.userId);
    return { id: row.id, trace_id: traceId };
  }

  async end(writer: Writer, body: unknown): Promise<void> {
    const { end } = validateOrThrow(CallEndBody, body, 'body');
    const row = toEndRow(end, ['body', 'end']);
    authorizeProjects(writer, [row.project_id]);
    await this.endBatcher.end(row, writer.userId);
  }

  /** `/call/upsert_batch`: every start in one multi-row INSERT and every end in one, in one transaction. */
  async upsertBatch(writer: Writer, body: CallBatchBody): Promise<{ id?: string; trace_id?: string }[]> {
    const starts: CallStartRow[] = [];
    const ends: CallEndRow[] = [];
    const issues: ValidationIssue[] = [];
    const slots: ({ kind: 'start'; row: CallStartRow } | { kind: 'end' })[] = [];
    body.batch.forEach((item, index) => {
      const at = ['body', 'batch', index, 'req'];
      try {
        if (item.mode === 'start') {
          const { start } = validateAt(CallStartBody, item.req, at);
          const row = toStartRow(start, writer, [...at, 'start']);
          starts.push(row);
          slots.push({ kind: 'start', row });
        } else {
          const { end } = validateAt(CallEndBody, item.req, at);
          ends.push(toEndRow(end, [...at, 'end']));
          slots.push({ kind: 'end' });
        }
      } catch (error) {
        if (error instanceof ValidationFailedError) issues.push(...(error.issues ?? []));
        else throw error;
      }
    });
    if (issues.length > 0) throw new ValidationFailedError(issues);
    authorizeProjects(writer, [...starts, ...ends].map((row) => row.project_id));
    inheritTracesWithinBatch(starts);

    const traceIds = await this.db.transaction().execute(async (trx) => {
      const written = await callStore.insertStartsNotingEnds(trx, dedupe(starts, 'first'));
      const ended = dedupe(ends, 'last');
      await callStore.applyEnds(trx, ended);
      // Ends written now, and starts of calls whose end an earlier request wrote (which this start completes).
      await this.endedCalls?.publish(trx, [...ended, ...written.ended], writer.userId);
      return written.traceIds;
    });
    return slots.map((slot) =>
      slot.kind === 'start' ? { id: slot.row.id, trace_id: traceIds.get(callKey(slot.row.project_id, slot.row.id))! } : {},
    );
  }

  /** `/v2/{entity}/{project}/calls/complete`: finished calls, start and end at once. */
  async completeBatch(
    writer: Writer,
    projectId: string,
    body: CompletedCallsBody,
  ): Promise<void> {
    const rows: CompletedCallRow[] = [];
    /** Where each call's row is in `rows`: a call sent twice keeps its first start and takes its last end. */
    const rowOf = new Map<string, CompletedCallRow>();
    const issues: ValidationIssue[] = [];
    body.batch.forEach((item, index) => {
      const at = ['body', 'batch', index];
      try {
        const call = validateAt(CompletedCallSchema, item, at);
        if (call.project_id !== projectId) {
          throw new ValidationFailedError([{ loc: [...at, 'project_id'], msg: `project_id must be "${projectId}" (the path's project)`, type: 'value_error' }]);
        }
        const row = toCompletedRow(toStartRow(call, writer, at), toEndRow(call, at));
        const key = callKey(row.project_id, row.id);
        const earlier = rowOf.get(key);
        if (earlier) Object.assign(earlier, { ended_at: row.ended_at, output: row.output, summary: row.summary, exception: row.exception });
        else {
          rowOf.set(key, row);
          rows.push(row);
        }
      } catch (error) {
        if (error instanceof ValidationFailedError) issues.push(...(error.issues ?? []));
        else throw error;
      }
    });
    if (issues.length > 0) throw new ValidationFailedError(issues);
    authorizeProjects(writer, [projectId]);
    // One statement: no transaction of its own needed (unless monitors must hear of the calls).
    if (this.endedCalls) await this.endedCalls.writeEnds(this.db, rows, writer.userId, (db) => callStore.insertCompleted(db, rows));
    else await callStore.insertCompleted(this.db, rows);
  }

  /** Writes one complete call of the evaluation API (prediction, run, score) inside the caller's transaction. */
  async writeCompleted(
    trx: Kysely<TracingDatabase>,
    writer: Writer,
    call: Omit<CallStart, 'started_at'> & { kind: CallKind; output?: unknown; exception?: string | null; ended: boolean },
  ): Promise<{ id: string; trace_id: string }> {
    const now = new Date().toISOString();
    const row = toStartRow({ ...call, started_at: now }, writer, ['body'], call.kind);
    const traceIds = call.ended
      ? await callStore.insertCompleted(trx, [toCompletedRow(row, { project_id: row.project_id, id: row.id, ended_at: now, output: call.output ?? null, summary: {}, exception: call.exception ?? null })])
      : await callStore.insertStarts(trx, [row]);
    return { id: row.id, trace_id: traceIds.get(callKey(row.project_id, row.id))! };
  }

  async updateDisplayName(writer: Writer, projectId: string, callId: string, displayName: string): Promise<void> {
    authorizeProjects(writer, [projectId]);
    if (!(await callStore.updateDisplayName(this.db, projectId, callId, displayName))) {
      throw new NotFoundError(`Call ${callId} not found`);
    }
  }

  read = (projectId: string, id: string) => callStore.read(this.db, projectId, id);
  query = (projectId: string, filter: CallsFilterInput, sort: CallSort[], limit: number, offset: number) =>
    callStore.query(this.db, projectId, { filter }, sort, limit, offset);

  /**
   * Calls selected by a CallsFilter and a `query` expression, in `sort_by` order (oldest start first by default),
   * with only the `columns` asked for (call-columns.ts) and the refs at `expandColumns` replaced by their objects
   * (ref-expansion.ts). The request is validated as a whole: every problem of query, sort_by, columns and
   * expand_columns is in the one 422.
   */
  async search(projectId: string, request: CallsSearch, limit: number, offset: number) {
    const [compiled, columns, searched] = compileCallsRead(request);
    const order: CallSort[] = compiled.sort.length > 0 ? compiled.sort : [{ field: 'started_at', direction: 'asc' }];
    const selection = { filter: request.filter ?? {}, condition: bothOf(compiled.condition, searched?.condition ?? null), fullText: searched?.fullText };
    const rows = await callStore.query(this.db, projectId, selection, order, limit, offset, columns.projection);
    if (columns.expandColumns.length > 0 && request.returnExpandedColumnValues !== false) await expandCallRefs(this.db, projectId, rows as unknown as Record<string, unknown>[], columns.expandColumns);
    return rows;
  }

  /**
   * How many calls a CallsFilter, a `query` and a `search` select (all calls of the project without any). With
   * `atMost`, counting stops after atMost + 1 calls, so an answer above `atMost` means "more than atMost" and costs no
   * more to read than that many calls, however many match (the traces list over millions of calls).
   */
  async count(projectId: string, request: Omit<CallsSearch, 'sortBy'> = {}, atMost?: number | null): Promise<number> {
    const [{ condition }, searched] = collectIssues(
      () => compileQueryRequest(callFields, request.query, null),
      () => compileCallSearch(request.search),
    );
    if (atMost !== undefined && atMost !== null && !(Number.isInteger(atMost) && atMost >= 1 && atMost <= MAX_COUNT_BOUND)) {
      throw new ValidationFailedError([{ loc: ['atMost'], msg: `atMost must be a whole number from 1 to ${MAX_COUNT_BOUND.toLocaleString('en')}`, type: 'value_error' }]);
    }
    const selection = { filter: request.filter ?? {}, condition: bothOf(condition, searched?.condition ?? null) };
    return callStore.count(this.db, projectId, selection, atMost === undefined || atMost === null ? undefined : atMost + 1);
  }
}

/** Largest `atMost` of a bounded count. */
export const MAX_COUNT_BOUND = 1_000_000;

/** A read of calls as Project.calls, /calls/query and /calls/query_stats receive it. */
export interface CallsSearch {
  filter?: CallsFilterInput | null;
  /** Weave's `{"$expr": …}` (query-expression.ts), unparsed. */
  query?: unknown;
  /** The traces list's full-text words, window, attributes and feedback (call-search.ts), in wire form, unvalidated. */
  search?: unknown;
  sortBy?: SortByInput[] | null;
  /** Weave's `columns`: what to return (null or empty: everything). */
  columns?: readonly string[] | null;
  /** Weave's `expand_columns`: dotted paths whose object refs are replaced by the objects' values. */
  expandColumns?: readonly string[] | null;
  /** Weave's `return_expanded_column_values` (default true): false validates `expandColumns` but expands nothing. */
  returnExpandedColumnValues?: boolean;
}

/**
 * The `query`, `sort_by`, `columns` and `expand_columns` of a read of calls, validated as a whole at their places in
 * the REST body (every problem in the one 422) and compiled.
 */
export function compileCallsRead(request: Pick<CallsSearch, 'query' | 'sortBy' | 'columns' | 'expandColumns' | 'search'>) {
  return collectIssues(
    () => compileQueryRequest(callFields, request.query, request.sortBy),
    () => parseCallColumns(request.columns, request.expandColumns),
    () => compileCallSearch(request.search),
  );
}

/** Both conditions (either may be absent). */
function bothOf(a: RawBuilder<SqlBool> | null, b: RawBuilder<SqlBool> | null): RawBuilder<SqlBool> | null {
  return a && b ? sql<SqlBool>`(${a} and ${b})` : (a ?? b);
}

/** Runs each validation; their ValidationFailedErrors become one, so a request hears of all its problems at once. */
function collectIssues<A, B>(first: () => A, second: () => B): [A, B];
function collectIssues<A, B, C>(first: () => A, second: () => B, third: () => C): [A, B, C];
function collectIssues(...validations: (() => unknown)[]): unknown[] {
  const issues: ValidationIssue[] = [];
  const run = <T>(validate: () => T): T | undefined => {
    try {
      return validate();
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      issues.push(...(error.issues ?? []));
      return undefined;
    }
  };
  const results = validations.map(run);
  if (issues.length > 0) throw new ValidationFailedError(issues);
  return results;
}

function validateAt<T extends Parameters<typeof validateOrThrow>[0]>(schema: T, value: unknown, at: (string | number)[]) {
  try {
    return validateOrThrow(schema, value, 'body');
  } catch (error) {
    if (!(error instanceof ValidationFailedError)) throw error;
    throw new ValidationFailedError((error.issues ?? []).map((issue) => ({ ...issue, loc: [...at, ...issue.loc.slice(1)] })));
  }
}

function authorizeProjects(writer: Writer, projectIds: string[]): void {
  for (const entity of new Set(projectIds.map((id) => parseProjectId(id)!.entity))) writer.assertWriter(entity);
}

/** `value` normalized to UTC; a 422 at `[...at, field]` when it is no date (the location is built only then). */
function isoAt(value: string, at: (string | number)[], field: string): string {
  const date = parseIsoDateTime(value);
  if (Number.isNaN(date.getTime())) throw new ValidationFailedError([{ loc: [...at, field], msg: 'Input should be a valid datetime', type: 'datetime_parsing' }]);
  return date.toISOString();
}

export function toStartRow(start: CallStart, writer: Writer, at: (string | number)[], kind: CallKind = 'call'): CallStartRow {
  return {
    project_id: start.project_id,
    id: start.id ?? uuidv7(),
    trace_id: start.trace_id ?? null,
    // Only read when the call names no trace (a root's new trace): no random id drawn for the rest.
    fallback_trace_id: start.trace_id ?? uuidv7(),
    parent_id: start.parent_id ?? null,
    op_name: start.op_name,
    display_name: start.display_name ?? null,
    thread_id: start.thread_id ?? null,
    turn_id: start.turn_id ?? null,
    started_at: isoAt(start.started_at, at, 'started_at'),
    attributes: start.attributes,
    inputs: start.inputs,
    otel_dump: start.otel_dump ?? null,
    wb_user_id: start.wb_user_id ?? start.svc_user_id ?? writer.userId,
    wb_run_id: start.wb_run_id ?? start.svc_run_id ?? null,
    wb_run_step: start.wb_run_step ?? start.svc_run_step ?? null,
    kind,
  };
}

type CompletedCallRow = CallStartRow & CallEndRow;

/** One row with a finished call's start and end columns, built as one object literal (no spread of two rows). */
function toCompletedRow(start: CallStartRow, end: CallEndRow): CompletedCallRow {
  return {
    project_id: start.project_id,
    id: start.id,
    trace_id: start.trace_id,
    fallback_trace_id: start.fallback_trace_id,
    parent_id: start.parent_id,
    op_name: start.op_name,
    display_name: start.display_name,
    thread_id: start.thread_id,
    turn_id: start.turn_id,
    started_at: start.started_at,
    attributes: start.attributes,
    inputs: start.inputs,
    otel_dump: start.otel_dump,
    wb_user_id: start.wb_user_id,
    wb_run_id: start.wb_run_id,
    wb_run_step: start.wb_run_step,
    kind: start.kind,
    ended_at: end.ended_at,
    output: end.output,
    summary: end.summary,
    exception: end.exception,
  };
}

/** A finished call of calls/complete may leave out its summary: stored as empty, as call/end requires it. */
function toEndRow(end: Omit<CallEnd, 'summary'> & Partial<Pick<CallEnd, 'summary'>>, at: (string | number)[]): CallEndRow {
  return {
    project_id: end.project_id,
    id: end.id,
    ended_at: isoAt(end.ended_at, at, 'ended_at'),
    // JSON null and "no output" are both stored as SQL NULL.
    output: end.output ?? null,
    summary: end.summary ?? {},
    exception: end.exception ?? null,
  };
}

/** A child whose parent starts earlier in the same batch takes the parent's trace (the database cannot see it yet). */
function inheritTracesWithinBatch(starts: CallStartRow[]): void {
  const traces = new Map<string, string>();
  for (const row of starts) {
    if (!row.trace_id && row.parent_id) row.trace_id = traces.get(callKey(row.project_id, row.parent_id)) ?? null;
    traces.set(callKey(row.project_id, row.id), row.trace_id ?? row.fallback_trace_id);
  }
  // Roots without a trace id get their generated one now, so their children above agree with what is stored.
  for (const row of starts) if (!row.trace_id && !row.parent_id) row.trace_id = row.fallback_trace_id;
}

function dedupe<T extends { project_id: string; id: string }>(rows: T[], keep: 'first' | 'last'): T[] {
  const byKey = new Map<string, T>();
  for (const row of rows) {
    const key = callKey(row.project_id, row.id);
    if (keep === 'last' || !byKey.has(key)) byKey.set(key, row);
  }
  return [...byKey.values()];
}

