import { Field, Int, ObjectType } from 'type-graphql';
import { BigIntScalar, JSONObjectScalar, JSONScalar } from '../../../platform/graphql/scalars.js';
import type { FeedbackRow } from './feedback.store.js';
import type { FeedbackAggregate as FeedbackAggregateResult } from './feedback.service.js';

@ObjectType({ description: 'Feedback on a call or object (scores, reactions, annotations)' })
export class Feedback {
  @Field(() => String) id!: string;
  @Field(() => String) projectId!: string;
  @Field(() => String) weaveRef!: string;
  @Field(() => String) feedbackType!: string;
  @Field(() => JSONScalar) payload!: unknown;
  @Field(() => String, { nullable: true }) creator!: string | null;
  @Field(() => String, { nullable: true }) runnableRef!: string | null;
  @Field(() => String, { nullable: true }) callRef!: string | null;
  @Field(() => String, { nullable: true }) triggerRef!: string | null;
  @Field(() => String, { nullable: true }) annotationRef!: string | null;
  @Field(() => String, { nullable: true }) wbUserId!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => [String]) scorerTags!: string[];
  @Field(() => JSONObjectScalar) scorerRatings!: Record<string, number>;
  @Field(() => String, { nullable: true }) spanAgentName!: string | null;
  @Field(() => String, { nullable: true }) spanAgentVersion!: string | null;
  @Field(() => String) spanStatusCode!: string;
}

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
  @Field(() => Int) totalCount!: number;
  @Field(() => Int, { description: 'Rows with at least one tag or rating' }) scoredCount!: number;
  @Field(() => JSONObjectScalar) tagCounts!: Record<string, number>;
  @Field(() => JSONObjectScalar) ratingCounts!: Record<string, number>;
  @Field(() => JSONObjectScalar) ratingSums!: Record<string, number>;
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
  @Field(() => [Int]) totalCount!: number[];
  @Field(() => [Int], { description: 'Rows with at least one tag or rating' }) scoredCount!: number[];
  @Field(() => [JSONObjectScalar]) tagCounts!: Record<string, number>[];
  @Field(() => [JSONObjectScalar]) ratingCounts!: Record<string, number>[];
  @Field(() => [JSONObjectScalar]) ratingSums!: Record<string, number>[];
}

@ObjectType({ description: 'A sparse time series of scorer feedback; empty buckets are omitted' })
export class FeedbackAggregate {
  @Field(() => BigIntScalar) afterMs!: number;
  @Field(() => BigIntScalar) beforeMs!: number;
  @Field(() => Int, { nullable: true }) timeBucketSeconds!: number | null;
  @Field(() => [FeedbackBucket]) buckets!: FeedbackBucket[];
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
