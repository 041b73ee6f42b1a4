import { EPOCH_MS_MAX, INT4_MAX } from '../../../platform/validation.js';
import { Type, type Static } from '@sinclair/typebox';
import { OptionalQuery, OptionalSortBy } from '../query/query.schemas.js';
import { FreeObject, OptionalNullable, ProjectId, StringEnum } from '../schema-helpers.js';

export const SPAN_TYPES = ['agent_turn', 'agent_conversation'] as const;
export type SpanType = (typeof SPAN_TYPES)[number];
export const FEEDBACK_GROUP_BY = ['scorer_id', 'span_agent_name', 'span_agent_version', 'span_status_code'] as const;
export type FeedbackGroupBy = (typeof FEEDBACK_GROUP_BY)[number];

/** One request may ask for at most this many time buckets ((before_ms - after_ms) / bucket size, rounded up). */
export const MAX_AGGREGATE_BUCKETS = 10_000;

export const FeedbackCreateBody = Type.Object(
  {
    project_id: ProjectId,
    weave_ref: Type.String({ minLength: 1 }),
    feedback_type: Type.String({ minLength: 1 }),
    payload: FreeObject(),
    creator: OptionalNullable(Type.String()),
    runnable_ref: OptionalNullable(Type.String()),
    call_ref: OptionalNullable(Type.String()),
    trigger_ref: OptionalNullable(Type.String()),
    annotation_ref: OptionalNullable(Type.String()),
    wb_user_id: OptionalNullable(Type.String()),
    scorer_tags: OptionalNullable(Type.Array(Type.String())),
    scorer_ratings: OptionalNullable(Type.Record(Type.String(), Type.Number())),
    span_agent_name: OptionalNullable(Type.String()),
    span_agent_version: OptionalNullable(Type.String()),
    span_status_code: OptionalNullable(Type.String()),
  },
  { additionalProperties: true },
);
export type FeedbackCreateBody = Static<typeof FeedbackCreateBody>;

/** The keys of a feedback record in REST answers (Weave's Feedback, and the spec's scorer and span fields). */
export const FEEDBACK_RECORD_FIELDS = [
  'id',
  'project_id',
  'weave_ref',
  'feedback_type',
  'payload',
  'creator',
  'runnable_ref',
  'call_ref',
  'trigger_ref',
  'annotation_ref',
  'wb_user_id',
  'created_at',
  'scorer_tags',
  'scorer_ratings',
  'span_agent_name',
  'span_agent_version',
  'span_status_code',
] as const;
export type FeedbackRecordField = (typeof FEEDBACK_RECORD_FIELDS)[number];

/** A record field, or a dotted path into the payload (`payload.note`, `payload.output.score`). */
const FeedbackFieldName = Type.String({ pattern: `^(${FEEDBACK_RECORD_FIELDS.join('|')}|payload(\\.[^.]+)+)$` });

export const FeedbackQueryBody = Type.Object(
  {
    project_id: ProjectId,
    limit: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    offset: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    sort_by: OptionalSortBy,
    query: OptionalQuery,
    // Like Weave: each record has only these keys (a payload path's key is the path, its value the JSON there).
    fields: OptionalNullable(Type.Array(FeedbackFieldName)),
  },
  { additionalProperties: true },
);
export type FeedbackQueryBody = Static<typeof FeedbackQueryBody>;

const names = Type.Optional(Type.Array(Type.String()));
const rating = OptionalNullable(Type.Number({ minimum: 0, maximum: 1 }));

/** The request fields of /feedback/aggregate other than project_id (also the arguments of Project.feedbackAggregate). */
export const feedbackAggregateFields = {
  after_ms: Type.Integer({ minimum: 0, maximum: EPOCH_MS_MAX }),
  before_ms: Type.Integer({ minimum: 0, maximum: EPOCH_MS_MAX }),
  time_bucket_seconds: OptionalNullable(Type.Integer({ exclusiveMinimum: 0, maximum: INT4_MAX })),
  feedback_types: names,
  tags: names,
  rating_min: rating,
  rating_max: rating,
  monitor_ids: names,
  scorer_ids: names,
  span_agent_names: names,
  span_types: Type.Optional(Type.Array(StringEnum(SPAN_TYPES), { default: [] })),
  group_by: Type.Optional(Type.Array(StringEnum(FEEDBACK_GROUP_BY), { default: [] })),
};

export const FeedbackAggregateBody = Type.Object({ project_id: ProjectId, ...feedbackAggregateFields }, { additionalProperties: false });
export type FeedbackAggregateBody = Static<typeof FeedbackAggregateBody>;
export const FeedbackAggregateQuery = Type.Object(feedbackAggregateFields, { additionalProperties: false });
export type FeedbackAggregateQuery = Static<typeof FeedbackAggregateQuery>;
