import { EPOCH_MS_MAX, INT4_MAX } from '../../../platform/validation.js';
import { Type, type Static } from '@sinclair/typebox';
import { OptionalQuery, sortBySchema } from '../query/query.schemas.js';
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
    weave_ref: Type.String({ minLength: 1, description: 'What the feedback is on: a call or object ref (`weave:///entity/project/call/<id>`)' }),
    feedback_type: Type.String({
      minLength: 1,
      description: 'What kind of feedback: `wandb.reaction.1`, `wandb.note.1`, `wandb.runnable.<Scorer>` (a scorer\'s output), …',
    }),
    payload: FreeObject({ description: 'The feedback itself (an emoji, a note, a score output, …), free-form' }),
    creator: OptionalNullable(Type.String({ description: 'Who gave it, as the client names them' })),
    runnable_ref: OptionalNullable(Type.String({ description: 'The scorer (object ref) that produced it' })),
    call_ref: OptionalNullable(Type.String({ description: 'The call that produced it (e.g. the scorer call)' })),
    trigger_ref: OptionalNullable(Type.String({ description: 'The monitor (object ref) that triggered it' })),
    annotation_ref: OptionalNullable(Type.String({ description: 'The annotation spec (object ref) it answers' })),
    wb_user_id: OptionalNullable(Type.String({ description: 'Not used: feedback is recorded for the calling user' })),
    scorer_tags: OptionalNullable(Type.Array(Type.String(), { description: 'Tags the scorer assigned (counted by the feedback aggregate)' })),
    scorer_ratings: OptionalNullable(
      Type.Record(Type.String(), Type.Number(), {
        description: 'Ratings by name (numbers; `_rating_` is the one rating bounds filter on), summed by the feedback aggregate',
      }),
    ),
    span_agent_name: OptionalNullable(Type.String({ description: 'The agent of the span the feedback is on' })),
    span_agent_version: OptionalNullable(Type.String({ description: "That agent's version" })),
    span_status_code: OptionalNullable(Type.String({ description: 'The OpenTelemetry status of that span (default UNSET)' })),
  },
  { additionalProperties: true, graphqlName: 'FeedbackCreateInput', description: 'Feedback to record on a call or object' },
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

export const FeedbackSortBySchema = sortBySchema(
  'FeedbackSortInput',
  'One sort key of a list of feedback (before the creation order)',
  'A feedback field (created_at, feedback_type, …) or a dotted path into payload',
);

export const FeedbackQueryBody = Type.Object(
  {
    project_id: ProjectId,
    limit: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    offset: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    sort_by: OptionalNullable(FeedbackSortBySchema),
    query: OptionalQuery,
    // Like Weave: each record has only these keys (a payload path's key is the path, its value the JSON there).
    fields: OptionalNullable(Type.Array(FeedbackFieldName)),
  },
  { additionalProperties: true },
);
export type FeedbackQueryBody = Static<typeof FeedbackQueryBody>;

const names = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));
const rating = (description: string) => OptionalNullable(Type.Number({ minimum: 0, maximum: 1, description }));
const SpanTypeSchema = {
  ...StringEnum(SPAN_TYPES),
  graphqlName: 'FeedbackSpanType',
  description: 'The kind of span feedback is on (the second-to-last segment of its weave_ref)',
  graphqlValues: { agent_turn: 'One turn of an agent', agent_conversation: 'A whole agent conversation' },
};
const GroupBySchema = {
  ...StringEnum(FEEDBACK_GROUP_BY),
  graphqlName: 'FeedbackGroupBy',
  description: 'A dimension feedback aggregates can be grouped by',
  graphqlValues: {
    scorer_id: 'The scorer (object name of runnable_ref)',
    span_agent_name: 'The agent of the span',
    span_agent_version: "That agent's version",
    span_status_code: "The span's status code",
  },
};

/** The request fields of /feedback/aggregate other than project_id (also the input of Project.feedbackAggregate). */
export const feedbackAggregateFields = {
  after_ms: Type.Integer({ minimum: 0, maximum: EPOCH_MS_MAX, description: 'Start of the window (inclusive), epoch milliseconds UTC' }),
  before_ms: Type.Integer({ minimum: 0, maximum: EPOCH_MS_MAX, description: 'End of the window (exclusive), epoch milliseconds UTC; later than its start' }),
  time_bucket_seconds: OptionalNullable(
    Type.Integer({
      exclusiveMinimum: 0,
      maximum: INT4_MAX,
      description: `Bucket size in seconds (buckets are epoch-aligned; at most ${MAX_AGGREGATE_BUCKETS} per request); absent: one bucket for the window`,
    }),
  ),
  feedback_types: names('Feedback types, by prefix (a trailing * is dropped)'),
  tags: names('Only feedback carrying one of these scorer tags'),
  rating_min: rating('Only feedback whose `_rating_` is at least this'),
  rating_max: rating('Only feedback whose `_rating_` is at most this'),
  monitor_ids: names('Monitors (object name of trigger_ref): exact, or a prefix ending in *'),
  scorer_ids: names('Scorers (object name of runnable_ref): exact, or a prefix ending in *'),
  span_agent_names: names('Agents of the spans, exact'),
  span_types: Type.Optional(Type.Array(SpanTypeSchema, { default: [], description: 'Kinds of span the feedback is on' })),
  group_by: Type.Optional(Type.Array(GroupBySchema, { default: [], description: 'Group each bucket by these dimensions' })),
};

export const FeedbackAggregateBody = Type.Object({ project_id: ProjectId, ...feedbackAggregateFields }, { additionalProperties: false });
export type FeedbackAggregateBody = Static<typeof FeedbackAggregateBody>;
export const FeedbackAggregateQuery = Type.Object(feedbackAggregateFields, {
  additionalProperties: false,
  graphqlName: 'FeedbackAggregateInput',
  description: 'Which feedback to aggregate (a time window and filters) and how to bucket and group it',
});
export type FeedbackAggregateQuery = Static<typeof FeedbackAggregateQuery>;
