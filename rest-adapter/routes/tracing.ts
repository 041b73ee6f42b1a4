import { Type } from '@sinclair/typebox';
import { NotFoundError, ValidationFailedError } from '../../platform/errors.js';
import { decodeCursor, encodeCursor, isOffset } from '../../platform/graphql/connection.js';
import type { TypedInput } from '../../platform/graphql/typed-input.js';
import {
  CallBatchBody,
  CallEndBody,
  CallReadBody,
  CallStartBody,
  CallUpdateBody,
  CallsQueryBody,
  CallsQueryStatsBody,
  CompletedCallsBody,
  V2CallEndBody,
  V2CallStartBody,
  MAX_CALLS_PAGE,
  type CallsQueryBody as CallsQuery,
} from '../../subgraphs/tracing/call/call.schemas.js';
import { readsSummary } from '../../subgraphs/tracing/call/call-columns.js';
import { CSV_HEADER, csvLine } from '../../subgraphs/tracing/call/call-export.js';
import { CallsExportBody, MAX_EXPORT_CALLS } from '../../subgraphs/tracing/call/call-search.schemas.js';
import { callFields } from '../../subgraphs/tracing/call/call-fields.js';
import { compileCallsRead } from '../../subgraphs/tracing/call/call.service.js';
import {
  AT_BODY,
  AT_END,
  AT_START,
  CALLS_ARGUMENTS,
  CallEndInput,
  CallFilterInput,
  CallSearchInput,
  CallSortInput,
  CallStartInput,
  CallUpdateInput,
  CompletedCallInput,
  ProjectCallEndInput,
  ProjectCallStartInput,
} from '../../subgraphs/tracing/call/call.inputs.js';
import { feedbackFields } from '../../subgraphs/tracing/feedback/feedback-fields.js';
import { FEEDBACK_ARGUMENTS, FeedbackAggregateInput, FeedbackCreateInput, FeedbackSortInput } from '../../subgraphs/tracing/feedback/feedback.inputs.js';
import { FeedbackAggregateBody, FeedbackCreateBody, FeedbackQueryBody, type FeedbackRecordField } from '../../subgraphs/tracing/feedback/feedback.schemas.js';
import {
  AT_OBJECT,
  AT_TABLE,
  OBJECTS_ARGUMENTS,
  ObjectSortInput,
  TraceFileCreateInput,
  TraceObjectCreateInput,
  TraceObjectFilterInput,
  TraceTableCreateInput,
  TraceTableRowFilterInput,
} from '../../subgraphs/tracing/object/object.inputs.js';
import { FileContentBody, ObjCreateBody, ObjQueryBody, ObjReadBody, TableCreateBody, TableQueryBody } from '../../subgraphs/tracing/object/object.schemas.js';
import { MAX_FILE_BYTES } from '../../subgraphs/tracing/object/object.service.js';
import { compileQueryRequest } from '../../subgraphs/tracing/query/query-request.js';
import { queryFromWire } from '../../subgraphs/tracing/query/query.inputs.js';
import { EvaluationRunCreateInput, EvaluationRunFinishInput, PredictionCreateInput, ScoreCreateInput } from '../../subgraphs/tracing/score/score.inputs.js';
import { EvaluationRunCreateBody, EvaluationRunFinishBody, PredictionCreateBody, ScoreCreateBody } from '../../subgraphs/tracing/score/score.schemas.js';
import { ProjectId } from '../../subgraphs/tracing/schema-helpers.js';
import { defineRoute } from '../route.js';

/**
 * Family A (Weave trace server) under /traces. Every write declares its project (`ensureProject`: created on first
 * write, 403 for callers outside the entity, before the tracing mutation runs) and is executed on the tracing
 * subgraph directly when it runs in this process (`subgraph`), so a write to a known project costs one subgraph
 * operation; the tracing mutations authorize the caller themselves. Every read goes through
 * `project(entity, name) { … }`. Responses are shaped into the Weave wire names here.
 */
const split = (projectId: string) => {
  const [entity, project] = projectId.split('/') as [string, string];
  return { entity, project };
};
const ProjectPath = Type.Object({ entity: Type.String(), project: Type.String() });
/**
 * The `/v2/{entity}/{project}/…` writes: project from the path, the whole body handed to the mutation as its typed
 * `$input`, executed on the in-process tracing subgraph.
 */
function projectPathWrite(input: TypedInput<any>) {
  return {
    subgraph: 'tracing',
    ensureProject: ({ params }: { params: { entity: string; project: string } }) => ({ entity: params.entity, project: params.project }),
    variables: ({ params, body }: { params: { entity: string; project: string }; body: unknown }) => ({
      entity: params.entity,
      project: params.project,
      input: input.fromWire(body as never),
    }),
    issueLocation: (loc: (string | number)[]) => input.wireLocation(loc, AT_BODY),
  } as const;
}

/**
 * A body's `query` as the typed GraphQL variable. A query the typed form cannot hold (a syntax error) is a 422 here,
 * at its place in the body; `validateRequest` then reports it together with the request's other problems (what the
 * operation would have found), so the answer still lists them all at once.
 */
function typedQuery(query: unknown, validateRequest: () => unknown): Record<string, unknown> | null {
  try {
    return queryFromWire(query);
  } catch (error) {
    if (!(error instanceof ValidationFailedError)) throw error;
    validateRequest();
    throw error;
  }
}

const BATCH_BODY_LIMIT = 64 * 1024 * 1024;

const CALL_FIELDS = `projectId id traceId parentId opName displayName threadId turnId startedAt endedAt latencyMs status traceName
  attributes inputs output summary exception otelDump wbUserId wbRunId wbRunStep`;

/**
 * A call's summary as the Weave trace server answers it: the stored summary, with what the server derives under
 * `weave` (`status`, `latency_ms` once ended, `display_name` when the call has one and `trace_name` otherwise, each
 * replacing any stored value of the same key) and, with include_feedback, the call's `feedback`. A summary that
 * `columns` left out stays null.
 */
function weaveSummaryOf(call: Record<string, any>, summaryRead: boolean) {
  if (!summaryRead) return call.summary ?? null;
  const stored: Record<string, any> = isObject(call.summary) ? call.summary : {};
  const { status: _status, latency_ms: _latency, trace_name: _traceName, display_name: _displayName, ...kept } = isObject(stored.weave) ? stored.weave : {};
  return {
    ...stored,
    weave: {
      ...kept,
      status: call.status,
      ...(call.latencyMs !== null && call.latencyMs !== undefined ? { latency_ms: call.latencyMs } : {}),
      ...(call.displayName ? { display_name: call.displayName } : call.traceName ? { trace_name: call.traceName } : {}),
      ...(call.feedback ? { feedback: call.feedback.map(toWeaveFeedback) } : {}),
    },
  };
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A Call in the Weave wire shape; `summaryRead` is false when the request's `columns` left the summary out. */
function toWeaveCall(call: Record<string, any>, summaryRead = true) {
  return {
    project_id: call.projectId,
    id: call.id,
    op_name: call.opName,
    display_name: call.displayName,
    trace_id: call.traceId,
    parent_id: call.parentId,
    thread_id: call.threadId,
    turn_id: call.turnId,
    started_at: call.startedAt,
    ended_at: call.endedAt,
    attributes: call.attributes ?? {},
    inputs: call.inputs ?? {},
    output: call.output,
    summary: weaveSummaryOf(call, summaryRead),
    exception: call.exception,
    otel_dump: call.otelDump,
    wb_user_id: call.wbUserId,
    wb_run_id: call.wbRunId,
    wb_run_step: call.wbRunStep,
    deleted_at: null,
  };
}

/**
 * Weave's `offset` as the `after` cursor of a connection: the tracing lists page by position and their cursors
 * encode the offset after an item, so an offset is a cursor there.
 */
const offsetCursor = (offset: number | null | undefined) => (offset ? encodeCursor(offset) : null);

/** Weave's `limit` as the `first` of one page: the REST answers are one page of at most 10,000 items, as before. */
const pageOf = (limit: number | null | undefined, absent: number) => Math.min(limit ?? absent, MAX_CALLS_PAGE);

/** Typed sort keys from a body's `sort_by`. */
const sortKeys = (sortBy: unknown[] | null | undefined, input: TypedInput<any>) => (sortBy ? sortBy.map((key) => input.fromWire(key as never)) : null);

const FEEDBACK_FIELDS = `id projectId weaveRef feedbackType payload creator runnableRef callRef triggerRef annotationRef wbUserId createdAt
  scorerTags scorerRatings spanAgentName spanAgentVersion spanStatusCode`;

const CALLS_PAGE = `query TraceCallsPage($entity: String!, $project: String!, $filter: CallFilter, $first: Int, $after: String, $sortBy: [CallSortInput!],
  $query: TraceQueryInput, $columns: [String!], $expandColumns: [String!], $returnExpanded: Boolean = true, $withFeedback: Boolean = false) {
  project(entity: $entity, name: $project) {
    calls(filter: $filter, first: $first, after: $after, sortBy: $sortBy, query: $query, columns: $columns, expandColumns: $expandColumns,
      returnExpandedColumnValues: $returnExpanded) {
      nodes { ${CALL_FIELDS} feedback @include(if: $withFeedback) { ${FEEDBACK_FIELDS} } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/** A page of an export: the calls the traces list shows, whole. */
const EXPORT_PAGE = `query TraceCallsExport($entity: String!, $project: String!, $filter: CallFilter, $first: Int, $after: String, $sortBy: [CallSortInput!],
  $query: TraceQueryInput, $search: CallSearch) {
  project(entity: $entity, name: $project) {
    calls(filter: $filter, first: $first, after: $after, sortBy: $sortBy, query: $query, search: $search) {
      nodes { ${CALL_FIELDS} }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;
const EXPORT_PAGE_SIZE = 1000;

/** Variables of one page of an export; its `limit` bounds the whole export. */
function exportPageVariables(body: CallsExportBody, cursor: string | null) {
  const written = cursor ? (decodeCursor(cursor, isOffset) ?? 0) : 0;
  return {
    ...split(body.project_id),
    filter: body.filter ? CallFilterInput.fromWire(body.filter) : null,
    first: Math.max(0, Math.min(EXPORT_PAGE_SIZE, (body.limit ?? MAX_EXPORT_CALLS) - written)),
    after: cursor,
    sortBy: sortKeys(body.sort_by, CallSortInput),
    query: typedQuery(body.query, () => compileCallsRead({ query: body.query, sortBy: body.sort_by, search: body.search })),
    search: body.search ? CallSearchInput.fromWire(body.search) : null,
  };
}

/** Variables of one calls page; `limit`/`offset` of the body bound the whole result, pages bound memory. */
function callsPageVariables(body: CallsQuery, cursor: string | null, pageSize: number) {
  return {
    ...split(body.project_id),
    filter: body.filter ? CallFilterInput.fromWire(body.filter) : null,
    first: Math.min(pageSize, body.limit ?? pageSize),
    // Project.calls pages by position (its cursors encode offsets), so Weave's offset is a cursor there.
    after: cursor ?? offsetCursor(body.offset),
    sortBy: sortKeys(body.sort_by, CallSortInput),
    query: typedQuery(body.query, () =>
      compileCallsRead({ query: body.query, sortBy: body.sort_by, columns: body.columns, expandColumns: body.expand_columns }),
    ),
    columns: body.columns ?? null,
    expandColumns: body.expand_columns ?? null,
    returnExpanded: body.return_expanded_column_values !== false,
    withFeedback: body.include_feedback === true,
  };
}


function toWeaveFeedback(feedback: Record<string, any>) {
  return {
    id: feedback.id,
    project_id: feedback.projectId,
    weave_ref: feedback.weaveRef,
    feedback_type: feedback.feedbackType,
    payload: feedback.payload,
    creator: feedback.creator,
    runnable_ref: feedback.runnableRef,
    call_ref: feedback.callRef,
    trigger_ref: feedback.triggerRef,
    annotation_ref: feedback.annotationRef,
    wb_user_id: feedback.wbUserId,
    created_at: feedback.createdAt,
    scorer_tags: feedback.scorerTags,
    scorer_ratings: feedback.scorerRatings,
    span_agent_name: feedback.spanAgentName,
    span_agent_version: feedback.spanAgentVersion,
    span_status_code: feedback.spanStatusCode,
  } satisfies Record<FeedbackRecordField, unknown>; // (the keys `fields` may name: FEEDBACK_RECORD_FIELDS)
}

/**
 * `fields` of /feedback/query (validated by FeedbackQueryBody): a record with only those keys; a dotted payload path
 * is a key of its own whose value is the JSON at that path (null when absent), as Weave answers it.
 */
function selectFields(record: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const selected: Record<string, unknown> = {};
  for (const field of fields) {
    const [head, ...path] = field.split('.');
    let value: unknown = record[head!];
    for (const key of path) value = value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : null;
    selected[field] = value ?? null;
  }
  return selected;
}

const OBJECT_FIELDS = 'projectId objectId digest versionIndex isLatest kind baseObjectClass val wbUserId createdAt';
function toWeaveObject(obj: Record<string, any>) {
  return {
    project_id: obj.projectId,
    object_id: obj.objectId,
    created_at: obj.createdAt,
    digest: obj.digest,
    version_index: obj.versionIndex,
    is_latest: obj.isLatest ? 1 : 0,
    kind: obj.kind,
    base_object_class: obj.baseObjectClass,
    val: obj.val,
    wb_user_id: obj.wbUserId,
    deleted_at: null,
  };
}

function requireProject<T>(data: { project: T | null }, projectId: string): T {
  if (!data.project) throw new NotFoundError(`Project ${projectId} not found`);
  return data.project;
}

export const tracingRoutes = [
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/call/start',
    summary: 'Start a call',
    schema: { body: CallStartBody },
    operation: `mutation TraceCallStart($input: CallStartInput!) {
      startCall(input: $input) { id traceId }
    }`,
    subgraph: 'tracing',
    ensureProject: ({ body }) => split(body.start.project_id),
    variables: ({ body }) => ({ input: CallStartInput.fromWire(body.start) }),
    issueLocation: (loc) => CallStartInput.wireLocation(loc, AT_START),
    response: (data) => ({ id: data.startCall.id, trace_id: data.startCall.traceId }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/call/end',
    summary: 'End a call',
    schema: { body: CallEndBody },
    operation: `mutation TraceCallEnd($input: CallEndInput!) {
      endCall(input: $input)
    }`,
    subgraph: 'tracing',
    ensureProject: ({ body }) => split(body.end.project_id),
    variables: ({ body }) => ({ input: CallEndInput.fromWire(body.end) }),
    issueLocation: (loc) => CallEndInput.wireLocation(loc, AT_END),
    response: () => ({}),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/call/upsert_batch',
    summary: 'Starts and ends of calls, all or nothing (the Weave SDK batch)',
    bodyLimit: BATCH_BODY_LIMIT,
    schema: { body: CallBatchBody },
    // The project of the first item is ensured; the mutation authorizes every project the batch names.
    operation: `mutation TraceCallBatch($items: [CallBatchItemInput!]!) {
      upsertCalls(items: $items) { id traceId }
    }`,
    subgraph: 'tracing',
    ensureProject: ({ body }) => {
      const first = body.batch[0]?.req as { start?: { project_id?: unknown }; end?: { project_id?: unknown } } | undefined;
      const projectId = String(first?.start?.project_id ?? first?.end?.project_id ?? '');
      return /^[^/]+\/[^/]+$/.test(projectId) ? split(projectId) : null;
    },
    variables: ({ body }) => ({
      items: (body as CallBatchBody).batch.map((item) =>
        item.mode === 'start'
          ? { start: CallStartInput.fromWire((item.req as CallStartBody).start) }
          : { end: CallEndInput.fromWire((item.req as CallEndBody).end) },
      ),
    }),
    // `items.<i>.start.startedAt` → `body.batch.<i>.req.start.started_at`.
    issueLocation: (loc) => {
      const [arg, index, mode] = loc;
      if (arg !== 'items' || typeof index !== 'number' || (mode !== 'start' && mode !== 'end')) return loc;
      const input = mode === 'start' ? CallStartInput : CallEndInput;
      return input.wireLocation(loc, { arg: ['items', index, mode], wire: ['body', 'batch', index, 'req', mode] });
    },
    response: (data) => ({ res: data.upsertCalls.map((r: any) => (r.id ? { id: r.id, trace_id: r.traceId } : {})) }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/v2/:entity/:project/calls/complete',
    summary: 'Completed calls (start and end at once)',
    bodyLimit: BATCH_BODY_LIMIT,
    schema: { params: ProjectPath, body: CompletedCallsBody },
    operation: `mutation TraceCallsComplete($entity: String!, $project: String!, $calls: [CompletedCallInput!]!) {
      completeCalls(entity: $entity, project: $project, calls: $calls)
    }`,
    subgraph: 'tracing',
    ensureProject: ({ params }) => ({ entity: params.entity, project: params.project }),
    variables: ({ params, body }) => ({ ...params, calls: (body as CompletedCallsBody).batch.map((call) => CompletedCallInput.fromWire(call)) }),
    issueLocation: (loc) =>
      loc[0] === 'calls' && typeof loc[1] === 'number' ? CompletedCallInput.wireLocation(loc, { arg: ['calls', loc[1]], wire: ['body', 'batch', loc[1]] }) : loc,
    response: () => ({}),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/v2/:entity/:project/call/start',
    summary: 'Start a call (project from the path)',
    schema: { params: ProjectPath, body: V2CallStartBody },
    operation: `mutation TraceV2CallStart($entity: String!, $project: String!, $input: ProjectCallStartInput!) {
      startProjectCall(entity: $entity, project: $project, input: $input) { id traceId }
    }`,
    subgraph: 'tracing',
    ensureProject: ({ params }) => ({ entity: params.entity, project: params.project }),
    variables: ({ params, body }) => ({ ...params, input: ProjectCallStartInput.fromWire(body.start) }),
    issueLocation: (loc) => ProjectCallStartInput.wireLocation(loc, AT_START),
    response: (data) => ({ id: data.startProjectCall.id, trace_id: data.startProjectCall.traceId }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/v2/:entity/:project/call/end',
    summary: 'End a call (project from the path)',
    schema: { params: ProjectPath, body: V2CallEndBody },
    operation: `mutation TraceV2CallEnd($entity: String!, $project: String!, $input: ProjectCallEndInput!) {
      endProjectCall(entity: $entity, project: $project, input: $input)
    }`,
    subgraph: 'tracing',
    ensureProject: ({ params }) => ({ entity: params.entity, project: params.project }),
    variables: ({ params, body }) => ({ ...params, input: ProjectCallEndInput.fromWire(body.end) }),
    issueLocation: (loc) => ProjectCallEndInput.wireLocation(loc, AT_END),
    response: () => ({}),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/call/update',
    summary: "Update a call's display name",
    schema: { body: CallUpdateBody },
    operation: `mutation TraceCallUpdate($input: CallUpdateInput!) { updateCall(input: $input) }`,
    variables: ({ body }) => ({ input: CallUpdateInput.fromWire(body) }),
    issueLocation: (loc) => CallUpdateInput.wireLocation(loc, AT_BODY),
    response: () => ({}),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/call/read',
    summary: 'Read one call',
    schema: { body: CallReadBody },
    operation: `query TraceCallRead($entity: String!, $project: String!, $id: String!) {
      project(entity: $entity, name: $project) { call(id: $id) { ${CALL_FIELDS} } }
    }`,
    variables: ({ body }) => ({ ...split(body.project_id), id: body.id }),
    response: (data, { body }) => {
      const call = requireProject<{ call: unknown }>(data as never, body.project_id).call as Record<string, any> | null;
      if (!call) throw new NotFoundError(`Call ${body.id} not found`);
      return { call: toWeaveCall(call) };
    },
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/calls/query',
    summary: 'Query calls (one JSON answer)',
    schema: { body: CallsQueryBody },
    operation: CALLS_PAGE,
    variables: ({ body }) => callsPageVariables(body, null, MAX_CALLS_PAGE),
    issueLocation: (loc) => CALLS_ARGUMENTS.wireLocation(loc),
    response: (data, { body }) => ({ calls: (data.project?.calls.nodes ?? []).map((call: Record<string, any>) => toWeaveCall(call, readsSummary(body.columns))) }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/calls/stream_query',
    summary: 'Query calls, streamed as JSON lines',
    schema: { body: CallsQueryBody },
    operation: CALLS_PAGE,
    variables: ({ body }) => callsPageVariables(body, null, 1000),
    issueLocation: (loc) => CALLS_ARGUMENTS.wireLocation(loc),
    response: () => undefined,
    stream: {
      contentType: 'application/jsonl',
      pageVariables: ({ body }, cursor) => {
        // `limit` bounds the whole stream: the last page asks only for what is left.
        const consumed = cursor ? (decodeCursor(cursor, isOffset) ?? 0) - (body.offset ?? 0) : 0;
        const remaining = body.limit === undefined || body.limit === null ? 1000 : Math.max(0, body.limit - consumed);
        return { ...callsPageVariables(body, cursor, 1000), first: Math.min(1000, remaining) };
      },
      page: (data, { body }) => {
        const calls = data.project?.calls;
        if (!calls) return { items: [], nextCursor: null };
        const nextCursor = calls.pageInfo.hasNextPage ? calls.pageInfo.endCursor : null;
        const consumed = nextCursor ? (decodeCursor(nextCursor, isOffset) ?? 0) - (body.offset ?? 0) : 0;
        const done = body.limit !== undefined && body.limit !== null && consumed >= body.limit;
        return { items: calls.nodes.map((call: Record<string, any>) => toWeaveCall(call, readsSummary(body.columns))), nextCursor: done ? null : nextCursor };
      },
    },
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/calls/export',
    summary: "Download the calls a list shows (filter, query, the traces list's search, sort) as JSON lines or CSV, streamed",
    schema: { body: CallsExportBody },
    operation: EXPORT_PAGE,
    variables: ({ body }) => exportPageVariables(body, null),
    issueLocation: (loc) => CALLS_ARGUMENTS.wireLocation(loc),
    response: () => undefined,
    stream: {
      contentType: 'application/jsonl',
      pageVariables: ({ body }, cursor) => exportPageVariables(body, cursor),
      page: (data, { body }) => {
        const calls = data.project?.calls;
        if (!calls) return { items: [], nextCursor: null };
        const next = calls.pageInfo.hasNextPage ? (calls.pageInfo.endCursor as string) : null;
        const done = next !== null && (decodeCursor(next, isOffset) ?? 0) >= (body.limit ?? MAX_EXPORT_CALLS);
        return { items: calls.nodes.map((call: Record<string, any>) => toWeaveCall(call)), nextCursor: done ? null : next };
      },
      encode: ({ body }) =>
        body.format === 'csv' ? { contentType: 'text/csv; charset=utf-8', header: CSV_HEADER, line: (call) => csvLine(call as Record<string, unknown>) } : null,
    },
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/calls/query_stats',
    summary: 'Count the calls a filter and query select',
    schema: { body: CallsQueryStatsBody },
    operation: `query TraceCallsQueryStats($entity: String!, $project: String!, $filter: CallFilter, $query: TraceQueryInput) {
      project(entity: $entity, name: $project) { callCount(filter: $filter, query: $query) }
    }`,
    variables: ({ body }) => ({
      ...split(body.project_id),
      filter: body.filter ? CallFilterInput.fromWire(body.filter) : null,
      query: typedQuery(body.query, () => compileQueryRequest(callFields, body.query, null)),
    }),
    issueLocation: (loc) => CALLS_ARGUMENTS.wireLocation(loc),
    response: (data, { body }) => {
      const count = data.project?.callCount ?? 0;
      return { count: body.limit === undefined || body.limit === null ? count : Math.min(count, body.limit) };
    },
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/obj/create',
    summary: 'Create an object version (content-addressed)',
    schema: { body: ObjCreateBody },
    operation: `mutation TraceObjCreate($input: TraceObjectCreateInput!) {
      createTraceObject(input: $input) { digest objectId }
    }`,
    subgraph: 'tracing',
    ensureProject: ({ body }) => split(body.obj.project_id),
    variables: ({ body }) => ({ input: TraceObjectCreateInput.fromWire(body.obj) }),
    issueLocation: (loc) => TraceObjectCreateInput.wireLocation(loc, AT_OBJECT),
    response: (data) => ({ digest: data.createTraceObject.digest, object_id: data.createTraceObject.objectId }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/obj/read',
    summary: 'Read an object version (digest, "latest" or "v<N>")',
    schema: { body: ObjReadBody },
    operation: `query TraceObjRead($entity: String!, $project: String!, $objectId: String!, $digest: String!) {
      project(entity: $entity, name: $project) { traceObject(objectId: $objectId, digest: $digest) { ${OBJECT_FIELDS} } }
    }`,
    variables: ({ body }) => ({ ...split(body.project_id), objectId: body.object_id, digest: body.digest }),
    response: (data, { body }) => {
      const obj = requireProject<{ traceObject: Record<string, any> | null }>(data as never, body.project_id).traceObject;
      if (!obj) throw new NotFoundError(`Object ${body.object_id}:${body.digest} not found`);
      return { obj: toWeaveObject(obj) };
    },
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/objs/query',
    summary: 'Query objects',
    schema: { body: ObjQueryBody },
    operation: `query TraceObjsQuery($entity: String!, $project: String!, $filter: TraceObjectFilter, $first: Int, $after: String,
      $sortBy: [ObjectSortInput!], $withVal: Boolean!) {
      project(entity: $entity, name: $project) {
        traceObjects(filter: $filter, first: $first, after: $after, sortBy: $sortBy) {
          nodes { ${OBJECT_FIELDS.replace(' val ', ' val @include(if: $withVal) ')} }
        }
      }
    }`,
    variables: ({ body }) => ({
      ...split(body.project_id),
      filter: body.filter ? TraceObjectFilterInput.fromWire(body.filter) : null,
      first: pageOf(body.limit, MAX_CALLS_PAGE),
      after: offsetCursor(body.offset),
      sortBy: sortKeys(body.sort_by, ObjectSortInput),
      // metadata_only: the objects without their (possibly large) values, which are answered as {}.
      withVal: body.metadata_only !== true,
    }),
    issueLocation: (loc) => OBJECTS_ARGUMENTS.wireLocation(loc),
    response: (data) => ({ objs: (data.project?.traceObjects.nodes ?? []).map((obj: Record<string, any>) => toWeaveObject({ val: {}, ...obj })) }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/table/create',
    summary: 'Create a table (rows content-addressed)',
    bodyLimit: BATCH_BODY_LIMIT,
    schema: { body: TableCreateBody },
    operation: `mutation TraceTableCreate($input: TraceTableCreateInput!) {
      createTraceTable(input: $input) { digest rowDigests }
    }`,
    subgraph: 'tracing',
    ensureProject: ({ body }) => split(body.table.project_id),
    variables: ({ body }) => ({ input: TraceTableCreateInput.fromWire(body.table) }),
    issueLocation: (loc) => TraceTableCreateInput.wireLocation(loc, AT_TABLE),
    response: (data) => ({ digest: data.createTraceTable.digest, row_digests: data.createTraceTable.rowDigests }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/table/query',
    summary: 'Rows of a table',
    schema: { body: TableQueryBody },
    operation: `query TraceTableQuery($entity: String!, $project: String!, $digest: String!, $filter: TraceTableRowFilter, $first: Int, $after: String) {
      project(entity: $entity, name: $project) {
        traceTableRows(digest: $digest, filter: $filter, first: $first, after: $after) { nodes { digest val originalIndex } }
      }
    }`,
    variables: ({ body }) => ({
      ...split(body.project_id),
      digest: body.digest,
      filter: body.filter ? TraceTableRowFilterInput.fromWire(body.filter) : null,
      first: pageOf(body.limit, MAX_CALLS_PAGE),
      after: offsetCursor(body.offset),
    }),
    response: (data, { body }) => ({
      rows: requireProject<{ traceTableRows: { nodes: any[] } }>(data as never, body.project_id).traceTableRows.nodes.map((row) => ({
        digest: row.digest,
        val: row.val,
        original_index: row.originalIndex,
      })),
    }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/file/create',
    summary: 'Store a file (multipart: project_id field, file part)',
    multipart: { maxFileBytes: MAX_FILE_BYTES },
    schema: { body: Type.Object({ project_id: ProjectId, file: Type.Any() }, { additionalProperties: true }) },
    operation: `mutation TraceFileCreate($input: TraceFileCreateInput!) {
      createTraceFile(input: $input)
    }`,
    subgraph: 'tracing',
    ensureProject: ({ body }) => split(body.project_id),
    variables: ({ body }) => ({
      input: TraceFileCreateInput.fromWire({
        project_id: body.project_id,
        content_base64: Buffer.isBuffer(body.file) ? body.file.toString('base64') : Buffer.from(String(body.file)).toString('base64'),
      }),
    }),
    response: (data) => ({ digest: data.createTraceFile }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/file/content',
    summary: 'The bytes of a stored file',
    schema: { body: FileContentBody },
    contentType: 'application/octet-stream',
    operation: `query TraceFileContent($entity: String!, $project: String!, $digest: String!) {
      project(entity: $entity, name: $project) { traceFileContent(digest: $digest) }
    }`,
    variables: ({ body }) => ({ ...split(body.project_id), digest: body.digest }),
    response: (data, { body }) => Buffer.from(requireProject<{ traceFileContent: string }>(data as never, body.project_id).traceFileContent, 'base64'),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/feedback/create',
    summary: 'Create feedback on a call or object',
    schema: { body: FeedbackCreateBody },
    operation: `mutation TraceFeedbackCreate($input: FeedbackCreateInput!) {
      createFeedback(input: $input) { id createdAt wbUserId payload }
    }`,
    subgraph: 'tracing',
    ensureProject: ({ body }) => split(body.project_id),
    variables: ({ body }) => ({ input: FeedbackCreateInput.fromWire(body) }),
    issueLocation: (loc) => FeedbackCreateInput.wireLocation(loc, AT_BODY),
    response: (data) => ({
      id: data.createFeedback.id,
      created_at: data.createFeedback.createdAt,
      wb_user_id: data.createFeedback.wbUserId,
      payload: data.createFeedback.payload,
    }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/feedback/query',
    summary: 'List feedback: `query` selects, `sort_by` orders (then oldest first)',
    schema: { body: FeedbackQueryBody },
    operation: `query TraceFeedbackQuery($entity: String!, $project: String!, $first: Int, $after: String, $query: TraceQueryInput, $sortBy: [FeedbackSortInput!]) {
      project(entity: $entity, name: $project) { feedback(first: $first, after: $after, query: $query, sortBy: $sortBy) { nodes { ${FEEDBACK_FIELDS} } } }
    }`,
    variables: ({ body }) => ({
      ...split(body.project_id),
      first: pageOf(body.limit, 1000),
      after: offsetCursor(body.offset),
      query: typedQuery(body.query, () => compileQueryRequest(feedbackFields, body.query, body.sort_by)),
      sortBy: sortKeys(body.sort_by, FeedbackSortInput),
    }),
    issueLocation: (loc) => FEEDBACK_ARGUMENTS.wireLocation(loc),
    response: (data, { body }) => {
      const records = (data.project?.feedback.nodes ?? []).map(toWeaveFeedback);
      return { result: body.fields ? records.map((record: Record<string, unknown>) => selectFields(record, body.fields!)) : records };
    },
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/feedback/aggregate',
    summary: 'Scorer feedback as a sparse time series',
    schema: { body: FeedbackAggregateBody },
    // Large answers (a month of hourly buckets): run on the tracing subgraph, no gateway for a known project.
    subgraph: 'tracing',
    readsProject: ({ body }) => split(body.project_id),
    operation: `query TraceFeedbackAggregate($entity: String!, $project: String!, $input: FeedbackAggregateInput!) {
      project(entity: $entity, name: $project) {
        feedbackAggregate(input: $input) {
          afterMs beforeMs timeBucketSeconds
          bucketColumns { timeBucketStartMs group totalCount scoredCount tagCounts ratingCounts ratingSums }
        }
      }
    }`,
    variables: ({ body }) => {
      const { project_id, ...request } = body;
      return { ...split(project_id), input: FeedbackAggregateInput.fromWire(request) };
    },
    issueLocation: (loc) => FeedbackAggregateInput.wireLocation(loc, AT_BODY),
    response: (data, { body }) => {
      const result = requireProject<{ feedbackAggregate: any }>(data as never, body.project_id).feedbackAggregate;
      const columns = result.bucketColumns;
      return {
        after_ms: Number(result.afterMs),
        before_ms: Number(result.beforeMs),
        time_bucket_seconds: result.timeBucketSeconds,
        // The operation reads the buckets column by column (cheaper to execute); the REST answer has them as objects.
        buckets: columns.totalCount.map((totalCount: number, index: number) => ({
          time_bucket_start_ms: columns.timeBucketStartMs[index] === null ? null : Number(columns.timeBucketStartMs[index]),
          group: columns.group[index],
          total_count: totalCount,
          scored_count: columns.scoredCount[index],
          tag_counts: columns.tagCounts[index],
          rating_counts: columns.ratingCounts[index],
          rating_sums: columns.ratingSums[index],
        })),
      };
    },
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/v2/:entity/:project/scores',
    summary: 'Record a score for a prediction',
    schema: { params: ProjectPath, body: ScoreCreateBody, response: Type.Object({ score_id: Type.String() }) },
    operation: `mutation TraceScoreCreate($entity: String!, $project: String!, $input: ScoreCreateInput!) {
      createScore(entity: $entity, project: $project, input: $input)
    }`,
    ...projectPathWrite(ScoreCreateInput),
    response: (data) => ({ score_id: data.createScore }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/v2/:entity/:project/predictions',
    summary: 'Record a prediction (a model call that scores point at)',
    schema: { params: ProjectPath, body: PredictionCreateBody },
    operation: `mutation TracePredictionCreate($entity: String!, $project: String!, $input: PredictionCreateInput!) {
      createPrediction(entity: $entity, project: $project, input: $input)
    }`,
    ...projectPathWrite(PredictionCreateInput),
    response: (data) => ({ prediction_id: data.createPrediction }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'GET',
    path: '/v2/:entity/:project/predictions/:id',
    summary: 'Read a prediction',
    schema: { params: Type.Object({ entity: Type.String(), project: Type.String(), id: Type.String() }) },
    operation: `query TracePredictionRead($entity: String!, $project: String!, $id: String!) {
      project(entity: $entity, name: $project) { prediction(id: $id) { id inputs output attributes traceId parentId startedAt } }
    }`,
    variables: ({ params }) => ({ entity: params.entity, project: params.project, id: params.id }),
    response: (data, { params }) => {
      const prediction = data.project?.prediction;
      if (!prediction) throw new NotFoundError(`Prediction ${params.id} not found`);
      const meta = prediction.attributes?._weave_eval_meta ?? {};
      return {
        prediction_id: prediction.id,
        model: meta.model ?? null,
        inputs: prediction.inputs,
        output: prediction.output,
        evaluation_run_id: meta.evaluation_run_id ?? null,
        created_at: prediction.startedAt,
      };
    },
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/v2/:entity/:project/evaluation_runs',
    summary: 'Start an evaluation run',
    schema: { params: ProjectPath, body: EvaluationRunCreateBody },
    operation: `mutation TraceEvaluationRunCreate($entity: String!, $project: String!, $input: EvaluationRunCreateInput!) {
      createEvaluationRun(entity: $entity, project: $project, input: $input)
    }`,
    ...projectPathWrite(EvaluationRunCreateInput),
    response: (data) => ({ evaluation_run_id: data.createEvaluationRun }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'GET',
    path: '/v2/:entity/:project/evaluation_runs/:id',
    summary: 'Read an evaluation run',
    schema: { params: Type.Object({ entity: Type.String(), project: Type.String(), id: Type.String() }) },
    operation: `query TraceEvaluationRunRead($entity: String!, $project: String!, $id: String!) {
      project(entity: $entity, name: $project) { evaluationRun(id: $id) { id attributes output startedAt endedAt traceId } }
    }`,
    variables: ({ params }) => ({ entity: params.entity, project: params.project, id: params.id }),
    response: (data, { params }) => {
      const run = data.project?.evaluationRun;
      if (!run) throw new NotFoundError(`Evaluation run ${params.id} not found`);
      const meta = run.attributes?._weave_eval_meta ?? {};
      return {
        evaluation_run_id: run.id,
        evaluation: meta.evaluation ?? null,
        model: meta.model ?? null,
        status: run.endedAt ? 'finished' : 'running',
        started_at: run.startedAt,
        finished_at: run.endedAt,
        summary: run.output ?? null,
      };
    },
  }),
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: '/v2/:entity/:project/evaluation_runs/:id/finish',
    summary: 'Finish an evaluation run',
    schema: { params: Type.Object({ entity: Type.String(), project: Type.String(), id: Type.String() }), body: Type.Optional(EvaluationRunFinishBody) },
    operation: `mutation TraceEvaluationRunFinish($entity: String!, $project: String!, $id: String!, $input: EvaluationRunFinishInput) {
      finishEvaluationRun(entity: $entity, project: $project, id: $id, input: $input)
    }`,
    variables: ({ params, body }) => ({
      entity: params.entity,
      project: params.project,
      id: params.id,
      input: body ? EvaluationRunFinishInput.fromWire(body) : null,
    }),
    issueLocation: (loc) => EvaluationRunFinishInput.wireLocation(loc, AT_BODY),
    response: () => ({ success: true }),
  }),
];
