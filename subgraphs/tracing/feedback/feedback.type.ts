import { Field, Float, Int, ObjectType } from 'type-graphql';
import { connectionTypes, type Connection } from '../../../platform/graphql/connection.js';
import { BigIntScalar, JSONObjectScalar, JSONScalar } from '../../../platform/graphql/scalars.js';
import type { FeedbackRow } from './feedback.store.js';
import type { FeedbackAggregate as FeedbackAggregateResult } from './feedback.service.js';

@ObjectType({ description: 'Feedback on a call or object (scores, reactions, annotations)' })
export class Feedback {
  @Field(() => String, { description: 'The feedback id (UUIDv7)' }) id!: string;
  @Field(() => String, { description: 'The project, as `<entity>/<project>`' }) projectId!: string;
  @Field(() => String, { description: 'What the feedback is on: a call or object ref' }) weaveRef!: string;
  @Field(() => String, { description: 'What kind of feedback (`wandb.reaction.1`, `wandb.note.1`, `wandb.runnable.<Scorer>`, …)' })
  feedbackType!: string;
  @Field(() => JSONScalar, { description: 'The feedback itself, free-form' }) payload!: unknown;
  @Field(() => String, { nullable: true, description: 'Who gave it, as the client named them' }) creator!: string | null;
  @Field(() => String, { nullable: true, description: 'The scorer (object ref) that produced it' }) runnableRef!: string | null;
  @Field(() => String, { nullable: true, description: 'The call that produced it (e.g. the scorer call)' }) callRef!: string | null;
  @Field(() => String, { nullable: true, description: 'The monitor (object ref) that triggered it' }) triggerRef!: string | null;
  @Field(() => String, { nullable: true, description: 'The annotation spec (object ref) it answers' }) annotationRef!: string | null;
  @Field(() => String, { nullable: true, description: 'The user who recorded it' }) wbUserId!: string | null;
  @Field(() => Date, { description: 'When it was recorded' }) createdAt!: Date;
  @Field(() => [String], { description: 'Tags the scorer assigned' }) scorerTags!: string[];
  @Field(() => JSONObjectScalar, { description: 'Ratings by name (numbers)' }) scorerRatings!: Record<string, number>;
  @Field(() => String, { nullable: true, description: 'The agent of the span the feedback is on' }) spanAgentName!: string | null;
  @Field(() => String, { nullable: true, description: "That agent's version" }) spanAgentVersion!: string | null;
  @Field(() => String, { description: 'The OpenTelemetry status of that span (UNSET unless given)' }) spanStatusCode!: string;
}

/** A page of a project's feedback (Relay connection). */
export const FeedbackConnection = connectionTypes(Feedback, 'Feedback', 'feedback record');
export type FeedbackConnection = Connection<Feedback>;

export function toFeedback(row: FeedbackRow): Feedback {
  return Object.assign(new Feedback(), {
    id: row.id,
    projectId: row.project_id,
    weaveRef: row.weave_ref,
    feedbackType: row.feedback_type,
    payload: row.payload,
    creator: row.creator,
    runnableRef: row.runnable_ref,
    callRef: row.call_ref,
    triggerRef: row.trigger_ref,
    annotationRef: row.annotation_ref,
    wbUserId: row.wb_user_id,
    createdAt: row.created_at,
    scorerTags: row.scorer_tags,
    scorerRatings: Object.fromEntries(row.scorer_rating_names.map((name, index) => [name, row.scorer_rating_values[index]])),
    spanAgentName: row.span_agent_name,
    spanAgentVersion: row.span_agent_version,
    spanStatusCode: row.span_status_code,
  });
}

// simpleResolvers: plain properties, read by graphql-js's default resolver (no type-graphql wrapper per field).
@ObjectType({ description: 'Aggregated feedback of one time bucket and group', simpleResolvers: true })
export class FeedbackBucket {
  @Field(() => BigIntScalar, { nullable: true, description: 'Bucket start, epoch ms UTC; null when unbucketed' })
  timeBucketStartMs!: number | null;
  @Field(() => JSONObjectScalar, { description: 'group_by dimension → value' }) group!: Record<string, string>;
  @Field(() => Int, { description: 'Feedback records in the bucket and group' }) totalCount!: number;
  @Field(() => Int, { description: 'Rows with at least one tag or rating' }) scoredCount!: number;
  @Field(() => JSONObjectScalar, { description: 'tag → how often it occurs' }) tagCounts!: Record<string, number>;
  @Field(() => JSONObjectScalar, { description: 'rating name → how many records carry it' }) ratingCounts!: Record<string, number>;
  @Field(() => JSONObjectScalar, { description: 'rating name → the sum of its values (divide by ratingCounts for the mean)' })
  ratingSums!: Record<string, number>;
}

/**
 * The same buckets column by column. A month of hourly buckets is thousands of objects; graphql-js resolves every
 * field of every object (argument coercion, resolve info, completion), while a list of scalars completes each
 * entry with one serialize call — the REST route reads this form.
 */
@ObjectType({
  description: 'The buckets of a feedback aggregate column by column: entry i of every list belongs to buckets[i], in the same order',
  simpleResolvers: true,
})
export class FeedbackBucketColumns {
  @Field(() => [BigIntScalar], { nullable: 'items', description: 'Bucket starts, epoch ms UTC; null entries when unbucketed' })
  timeBucketStartMs!: (number | null)[];
  @Field(() => [JSONObjectScalar], { description: 'group_by dimension → value' }) group!: Record<string, string>[];
  @Field(() => [Int], { description: 'Feedback records per bucket' }) totalCount!: number[];
  @Field(() => [Int], { description: 'Rows with at least one tag or rating' }) scoredCount!: number[];
  @Field(() => [JSONObjectScalar], { description: 'tag → how often it occurs, per bucket' }) tagCounts!: Record<string, number>[];
  @Field(() => [JSONObjectScalar], { description: 'rating name → how many records carry it, per bucket' }) ratingCounts!: Record<string, number>[];
  @Field(() => [JSONObjectScalar], { description: 'rating name → the sum of its values, per bucket' }) ratingSums!: Record<string, number>[];
}

@ObjectType({ description: 'A sparse time series of scorer feedback; empty buckets are omitted' })
export class FeedbackAggregate {
  @Field(() => BigIntScalar, { description: 'Start of the window (inclusive), epoch ms UTC, as asked' }) afterMs!: number;
  @Field(() => BigIntScalar, { description: 'End of the window (exclusive), epoch ms UTC, as asked' }) beforeMs!: number;
  @Field(() => Int, { nullable: true, description: 'Bucket size in seconds; null when the window is one bucket' }) timeBucketSeconds!: number | null;
  @Field(() => [FeedbackBucket], {
    description: 'The non-empty buckets by start, then group (bounded by the bucket cap and the groups, so a plain list)',
  })
  buckets!: FeedbackBucket[];
  @Field(() => FeedbackBucketColumns, { description: 'The buckets as one list per field (cheaper for long series)' })
  bucketColumns!: FeedbackBucketColumns;
}

/** The GraphQL form of a service answer; each representation of the buckets is built only when it is selected. */
export function toFeedbackAggregate(result: FeedbackAggregateResult): FeedbackAggregate {
  const buckets = result.buckets;
  return {
    afterMs: result.after_ms,
    beforeMs: result.before_ms,
    timeBucketSeconds: result.time_bucket_seconds,
    get buckets(): FeedbackBucket[] {
      return buckets.map((bucket) => ({
        timeBucketStartMs: bucket.time_bucket_start_ms,
        group: bucket.group,
        totalCount: bucket.total_count,
        scoredCount: bucket.scored_count,
        tagCounts: bucket.tag_counts,
        ratingCounts: bucket.rating_counts,
        ratingSums: bucket.rating_sums,
      }));
    },
    get bucketColumns(): FeedbackBucketColumns {
      return {
        timeBucketStartMs: buckets.map((bucket) => bucket.time_bucket_start_ms),
        group: buckets.map((bucket) => bucket.group),
        totalCount: buckets.map((bucket) => bucket.total_count),
        scoredCount: buckets.map((bucket) => bucket.scored_count),
        tagCounts: buckets.map((bucket) => bucket.tag_counts),
        ratingCounts: buckets.map((bucket) => bucket.rating_counts),
        ratingSums: buckets.map((bucket) => bucket.rating_sums),
      };
    },
  };
}

@ObjectType({ description: 'How many `_rating_` values fall in one bin of a rating histogram', simpleResolvers: true })
export class FeedbackRatingBin {
  @Field(() => Float, { description: 'The lowest value of the bin (inclusive)' }) low!: number;
  @Field(() => Float, {
    description: 'The highest value of the bin: exclusive, except in the last bin; equal to low when the histogram has one bin per whole number',
  })
  high!: number;
  @Field(() => Int, { description: 'How many feedback records have a `_rating_` in the bin' }) count!: number;
}

@ObjectType({ description: 'The distribution of `_rating_` over the selected feedback, binned over the range the values themselves span', simpleResolvers: true })
export class FeedbackRatingHistogram {
  @Field(() => Int, { description: 'How many feedback records have a `_rating_`' }) count!: number;
  @Field(() => Float, { nullable: true, description: 'The lowest `_rating_`; null when there is none' }) min!: number | null;
  @Field(() => Float, { nullable: true, description: 'The highest `_rating_`; null when there is none' }) max!: number | null;
  @Field(() => Boolean, { description: 'Every value is a whole number and the bins are one per value from min to max (a 1–5 scale has five)' })
  wholeNumbers!: boolean;
  @Field(() => [FeedbackRatingBin], { description: 'The bins, lowest first (empty bins included; none when there is no rating)' }) bins!: FeedbackRatingBin[];
}
