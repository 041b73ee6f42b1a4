import { Type, type Static } from '@sinclair/typebox';
import { OptionalQuery, sortBySchema } from '../query/query.schemas.js';
import { INT4_MAX, INT4_MIN } from '../../../platform/validation.js';
import { FreeObject, IsoDateTime, Nullable, OptionalNullable, ProjectId } from '../schema-helpers.js';

/**
 * Request schemas of the call operations, used by the REST routes (Fastify validation, /openapi.json) and by the
 * GraphQL mutations (validateOrThrow), so both answer the same 422s. Unknown keys inside `start`/`end` are ignored
 * (newer SDKs send fields we do not know yet); unknown keys of the wrapper are rejected.
 */
const userAndRunFields = {
  svc_user_id: OptionalNullable(Type.String({ description: 'The user the call ran for, as the calling service names them' })),
  svc_run_id: OptionalNullable(Type.String({ description: 'The run the call belongs to, as the calling service names it' })),
  svc_run_step: OptionalNullable(Type.Integer({ minimum: INT4_MIN, maximum: INT4_MAX, description: 'The step of that run' })),
  wb_user_id: OptionalNullable(Type.String({ description: 'The W&B user the call ran for' })),
  wb_run_id: OptionalNullable(Type.String({ description: 'The W&B run the call belongs to' })),
  wb_run_step: OptionalNullable(Type.Integer({ minimum: INT4_MIN, maximum: INT4_MAX, description: 'The step of that run' })),
};

const startFields = {
  project_id: ProjectId,
  id: OptionalNullable(Type.String({ minLength: 1, description: 'The call id (UUIDv7 recommended); generated when absent' })),
  op_name: Type.String({ minLength: 1, description: 'The operation called: a name or an op ref (`weave:///entity/project/op/name:digest`)' }),
  display_name: OptionalNullable(Type.String({ description: 'A name to show instead of the op name' })),
  trace_id: OptionalNullable(Type.String({ minLength: 1, description: 'The trace the call belongs to; a new trace when absent' })),
  parent_id: OptionalNullable(Type.String({ description: 'The call this one was made from; absent for a trace root' })),
  thread_id: OptionalNullable(Type.String({ description: 'The conversation thread the call belongs to' })),
  turn_id: OptionalNullable(Type.String({ description: 'The turn of that thread' })),
  started_at: { ...IsoDateTime, description: 'When the call started (ISO 8601; UTC when no offset is given)' },
  attributes: FreeObject({ description: 'Free-form attributes recorded with the call (environment, versions, …)' }),
  inputs: FreeObject({ description: "The call's inputs by parameter name (values may be refs to objects and tables)" }),
  otel_dump: OptionalNullable(FreeObject({ description: 'The OpenTelemetry span the call was made from, when it came through OTel' })),
  ...userAndRunFields,
};

const endFields = {
  project_id: ProjectId,
  id: Type.String({ minLength: 1, description: 'The id of the call that ends' }),
  ended_at: { ...IsoDateTime, description: 'When the call ended (ISO 8601; UTC when no offset is given)' },
  summary: FreeObject({ description: 'Free-form summary of the call (usage, scores); merged with the derived `weave` summary on reads' }),
  exception: OptionalNullable(Type.String({ description: 'The exception the call raised, if it failed' })),
  output: Type.Optional(Type.Unknown({ description: "The call's output (any JSON value)" })),
};

export const CallStartSchema = Type.Object(startFields, {
  additionalProperties: true,
  graphqlName: 'CallStartInput',
  description: 'A call (one traced operation) as it starts',
});
export type CallStart = Static<typeof CallStartSchema>;
export const CallStartBody = Type.Object({ start: CallStartSchema }, { additionalProperties: false });
export type CallStartBody = Static<typeof CallStartBody>;

export const CallEndSchema = Type.Object(endFields, {
  additionalProperties: true,
  graphqlName: 'CallEndInput',
  description: 'The end of a call: its output or exception and its summary',
});
export type CallEnd = Static<typeof CallEndSchema>;
export const CallEndBody = Type.Object({ end: CallEndSchema }, { additionalProperties: false });
export type CallEndBody = Static<typeof CallEndBody>;

/**
 * Each item's `req` is checked against CallStartBody or CallEndBody by its `mode` (if/then/else), so a bad item is
 * a 422 at `batch.<i>.req.<field>` before anything runs — also before the route's `ensureProject` creates a project.
 */
const CallBatchItem = Type.Unsafe<{ mode: 'start' | 'end'; req: Record<string, unknown> }>({
  type: 'object',
  required: ['mode', 'req'],
  additionalProperties: false,
  properties: { mode: { type: 'string', enum: ['start', 'end'] }, req: { type: 'object' } },
  if: { properties: { mode: { const: 'start' } } },
  then: { properties: { req: CallStartBody } },
  else: { properties: { req: CallEndBody } },
});
export const CallBatchBody = Type.Object({ batch: Type.Array(CallBatchItem, { minItems: 1 }) }, { additionalProperties: false });
export type CallBatchBody = Static<typeof CallBatchBody>;

export const CompletedCallSchema = Type.Object(
  {
    ...startFields,
    trace_id: Type.String({ minLength: 1, description: 'The trace the call belongs to' }),
    id: Type.String({ minLength: 1, description: 'The call id' }),
    ended_at: { ...IsoDateTime, description: 'When the call ended (ISO 8601; UTC when no offset is given)' },
    summary: Type.Optional(FreeObject({ description: 'Free-form summary of the call (usage, scores); empty when absent' })),
    exception: OptionalNullable(Type.String({ description: 'The exception the call raised, if it failed' })),
    output: Type.Optional(Type.Unknown({ description: "The call's output (any JSON value)" })),
  },
  { additionalProperties: true, graphqlName: 'CompletedCallInput', description: 'A call sent once it has ended: its start and end in one' },
);
export type CompletedCall = Static<typeof CompletedCallSchema>;
export const CompletedCallsBody = Type.Object({ batch: Type.Array(CompletedCallSchema) }, { additionalProperties: false });
export type CompletedCallsBody = Static<typeof CompletedCallsBody>;

/** v2 single-call routes take the project from the path; `project_id` in the body is optional there. */
export const V2CallStartSchema = Type.Object(
  { ...startFields, project_id: Type.Optional(ProjectId) },
  { additionalProperties: true, graphqlName: 'ProjectCallStartInput', description: 'A call of the project named by the path, as it starts' },
);
export const V2CallStartBody = Type.Object({ start: V2CallStartSchema }, { additionalProperties: false });
export const V2CallEndSchema = Type.Object(
  { ...endFields, project_id: Type.Optional(ProjectId) },
  { additionalProperties: true, graphqlName: 'ProjectCallEndInput', description: 'The end of a call of the project named by the path' },
);
export const V2CallEndBody = Type.Object({ end: V2CallEndSchema }, { additionalProperties: false });

export const CallReadBody = Type.Object({ project_id: ProjectId, id: Type.String({ minLength: 1 }) }, { additionalProperties: true });
export type CallReadBody = Static<typeof CallReadBody>;

export const CallUpdateBody = Type.Object(
  {
    project_id: ProjectId,
    call_id: Type.String({ minLength: 1, description: 'The call to rename' }),
    display_name: Type.String({ description: 'The new display name' }),
    wb_user_id: OptionalNullable(Type.String({ description: 'The W&B user making the change' })),
  },
  { additionalProperties: true, graphqlName: 'CallUpdateInput', description: "A change to a call's display name" },
);
export type CallUpdateBody = Static<typeof CallUpdateBody>;

const idList = (description: string) => OptionalNullable(Type.Array(Type.String(), { description }));
export const CallsFilterSchema = Type.Object(
  {
    op_names: idList('Exact op names, or `<op ref without version>:*` for every version of an op'),
    input_refs: idList('Calls whose inputs contain one of these refs (a string value at any depth)'),
    output_refs: idList('Calls whose output contains one of these refs (a string value at any depth)'),
    parent_ids: idList('Calls made from one of these calls'),
    trace_ids: idList('Calls of one of these traces'),
    call_ids: idList('These calls'),
    thread_ids: idList('Calls of one of these conversation threads'),
    turn_ids: idList('Calls of one of these turns'),
    trace_roots_only: OptionalNullable(Type.Boolean({ description: 'Only calls without a parent (trace roots)' })),
    wb_user_ids: idList('Calls made for one of these users'),
    wb_run_ids: idList('Calls of one of these runs'),
  },
  {
    additionalProperties: true,
    graphqlName: 'CallFilter',
    description: 'Which calls to read: every given field must hold; each list is "any of", and an absent or empty list does not filter',
  },
);
export type CallsFilter = Static<typeof CallsFilterSchema>;

/** Largest page of Project.calls and of /calls/query. */
export const MAX_CALLS_PAGE = 10_000;

export const CallSortBySchema = sortBySchema(
  'CallSortInput',
  'One sort key of a list of calls',
  'A call column, a dotted path into inputs/output/attributes/summary, summary.weave.(status|latency_ms|trace_name) or feedback.[type].payload.<path>',
);

export const CallsQueryBody = Type.Object(
  {
    project_id: ProjectId,
    filter: OptionalNullable(CallsFilterSchema),
    limit: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    offset: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    sort_by: OptionalNullable(CallSortBySchema),
    query: OptionalQuery,
    // Types only here; which names are allowed is checked by parseCallColumns (call-columns.ts), which GraphQL
    // callers reach too.
    columns: OptionalNullable(Type.Array(Type.String(), { description: 'Call columns to return; dotted entries select their first segment' })),
    expand_columns: OptionalNullable(
      Type.Array(Type.String(), { description: "Dotted paths into inputs/output/attributes/summary whose object refs are replaced by the objects' values" }),
    ),
    // Weave's default: expanded values are returned; false leaves the refs for the client to resolve.
    return_expanded_column_values: OptionalNullable(Type.Boolean()),
    // Accepted for the SDKs; this server has no model prices, so no costs are ever added (summary.weave.costs is absent).
    include_costs: OptionalNullable(Type.Boolean()),
    include_feedback: OptionalNullable(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type CallsQueryBody = Static<typeof CallsQueryBody>;

export const CallsQueryStatsBody = Type.Object(
  {
    project_id: ProjectId,
    filter: OptionalNullable(CallsFilterSchema),
    query: OptionalQuery,
    limit: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
  },
  { additionalProperties: true },
);
export type CallsQueryStatsBody = Static<typeof CallsQueryStatsBody>;

export { Nullable };
