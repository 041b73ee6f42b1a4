import { Type, type Static } from '@sinclair/typebox';
import { OptionalQuery, OptionalSortBy } from '../query/query.schemas.js';
import { INT4_MAX, INT4_MIN } from '../../../platform/validation.js';
import { FreeObject, IsoDateTime, Nullable, OptionalNullable, ProjectId } from '../schema-helpers.js';

/**
 * Request schemas of the call operations, used by the REST routes (Fastify validation, /openapi.json) and by the
 * GraphQL mutations (validateOrThrow), so both answer the same 422s. Unknown keys inside `start`/`end` are ignored
 * (newer SDKs send fields we do not know yet); unknown keys of the wrapper are rejected.
 */
const userAndRunFields = {
  svc_user_id: OptionalNullable(Type.String()),
  svc_run_id: OptionalNullable(Type.String()),
  svc_run_step: OptionalNullable(Type.Integer({ minimum: INT4_MIN, maximum: INT4_MAX })),
  wb_user_id: OptionalNullable(Type.String()),
  wb_run_id: OptionalNullable(Type.String()),
  wb_run_step: OptionalNullable(Type.Integer({ minimum: INT4_MIN, maximum: INT4_MAX })),
};

const startFields = {
  project_id: ProjectId,
  id: OptionalNullable(Type.String({ minLength: 1 })),
  op_name: Type.String({ minLength: 1 }),
  display_name: OptionalNullable(Type.String()),
  trace_id: OptionalNullable(Type.String({ minLength: 1 })),
  parent_id: OptionalNullable(Type.String()),
  thread_id: OptionalNullable(Type.String()),
  turn_id: OptionalNullable(Type.String()),
  started_at: IsoDateTime,
  attributes: FreeObject(),
  inputs: FreeObject(),
  otel_dump: OptionalNullable(FreeObject()),
  ...userAndRunFields,
};

const endFields = {
  project_id: ProjectId,
  id: Type.String({ minLength: 1 }),
  ended_at: IsoDateTime,
  summary: FreeObject(),
  exception: OptionalNullable(Type.String()),
  output: Type.Optional(Type.Unknown()),
};

export const CallStartSchema = Type.Object(startFields, { additionalProperties: true });
export type CallStart = Static<typeof CallStartSchema>;
export const CallStartBody = Type.Object({ start: CallStartSchema }, { additionalProperties: false });
export type CallStartBody = Static<typeof CallStartBody>;

export const CallEndSchema = Type.Object(endFields, { additionalProperties: true });
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
    trace_id: Type.String({ minLength: 1 }),
    id: Type.String({ minLength: 1 }),
    ended_at: IsoDateTime,
    summary: Type.Optional(FreeObject()),
    exception: OptionalNullable(Type.String()),
    output: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);
export type CompletedCall = Static<typeof CompletedCallSchema>;
export const CompletedCallsBody = Type.Object({ batch: Type.Array(CompletedCallSchema) }, { additionalProperties: false });
export type CompletedCallsBody = Static<typeof CompletedCallsBody>;

/** v2 single-call routes take the project from the path; `project_id` in the body is optional there. */
export const V2CallStartBody = Type.Object(
  { start: Type.Object({ ...startFields, project_id: Type.Optional(ProjectId) }, { additionalProperties: true }) },
  { additionalProperties: false },
);
export const V2CallEndBody = Type.Object(
  { end: Type.Object({ ...endFields, project_id: Type.Optional(ProjectId) }, { additionalProperties: true }) },
  { additionalProperties: false },
);

export const CallReadBody = Type.Object({ project_id: ProjectId, id: Type.String({ minLength: 1 }) }, { additionalProperties: true });
export type CallReadBody = Static<typeof CallReadBody>;

export const CallUpdateBody = Type.Object(
  {
    project_id: ProjectId,
    call_id: Type.String({ minLength: 1 }),
    display_name: Type.String(),
    wb_user_id: OptionalNullable(Type.String()),
  },
  { additionalProperties: true },
);
export type CallUpdateBody = Static<typeof CallUpdateBody>;

const idList = OptionalNullable(Type.Array(Type.String()));
export const CallsFilterSchema = Type.Object(
  {
    op_names: idList,
    input_refs: idList,
    output_refs: idList,
    parent_ids: idList,
    trace_ids: idList,
    call_ids: idList,
    thread_ids: idList,
    turn_ids: idList,
    trace_roots_only: OptionalNullable(Type.Boolean()),
    wb_user_ids: idList,
    wb_run_ids: idList,
  },
  { additionalProperties: true },
);
export type CallsFilter = Static<typeof CallsFilterSchema>;

/** Largest page of Project.calls and of /calls/query. */
export const MAX_CALLS_PAGE = 10_000;

export const CallsQueryBody = Type.Object(
  {
    project_id: ProjectId,
    filter: OptionalNullable(CallsFilterSchema),
    limit: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    offset: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    sort_by: OptionalSortBy,
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
