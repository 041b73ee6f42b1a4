import type { Kysely, Transaction } from 'kysely';
import type pg from 'pg';
import { uuidv7 } from '../../../platform/uuidv7.js';
import { BadRequestError, ValidationFailedError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { TracingDatabase } from '../db/database.js';
import { compileQueryRequest, type SortByInput } from '../query/query-request.js';
import { objectNameOfRef, parseProjectId, projectIdOfWeaveRef, spanTypeOfRef } from '../refs.js';
import type { Writer } from '../call/call.service.js';
import {
  FeedbackAggregateQuery,
  FeedbackCreateBody,
  MAX_AGGREGATE_BUCKETS,
  type FeedbackAggregateQuery as AggregateRequest,
} from './feedback.schemas.js';
import { feedbackFields } from './feedback-fields.js';
import { BucketMerger, type SourceRow } from './bucket-merge.js';
import { streamRows } from './stream-rows.js';
import { dedupeGroupBy, feedbackStore, type FeedbackRow, type RatingHistogramRows } from './feedback.store.js';

/**
 * Feedback is stored, queried and shown per project: feedback whose weave ref points into another project would be
 * stored where nobody ever sees it next to its call. Weave's server resolves the ref's project too and refuses a
 * mismatch; here that is a 422 at the field.
 */
function assertRefInProject(weaveRef: string, projectId: string): void {
  const refProject = projectIdOfWeaveRef(weaveRef);
  if (refProject === undefined || refProject === projectId) return;
  const msg =
    refProject === null
      ? 'weave_ref must be weave:///<entity>/<project>/<kind>/<id> (a call, object, op or table of the project)'
      : `weave_ref points into project "${refProject}", not "${projectId}": feedback must belong to the project of what it refers to`;
  throw new ValidationFailedError([{ loc: ['body', 'weave_ref'], msg, type: 'value_error' }]);
}

/** The rating that `rating_min`/`rating_max` bound. */
export const PRIMARY_RATING = '_rating_';

export interface FeedbackBucket {
  time_bucket_start_ms: number | null;
  group: Record<string, string>;
  total_count: number;
  scored_count: number;
  tag_counts: Record<string, number>;
  rating_counts: Record<string, number>;
  rating_sums: Record<string, number>;
}

export interface FeedbackAggregate {
  after_ms: number;
  before_ms: number;
  time_bucket_seconds: number | null;
  buckets: FeedbackBucket[];
}

export class FeedbackService {
  /**
   * `pool` streams aggregation rows from PostgreSQL into the merge as they arrive (a month is ≈ 10,000 rows, which
   * otherwise all live until the last is read and are copied by every young-generation GC meanwhile).
   */
  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly pool: pg.Pool,
  ) {}

  async create(writer: Writer, body: unknown): Promise<FeedbackRow> {
    const request = validateOrThrow(FeedbackCreateBody, body, 'body');
    writer.assertWriter(parseProjectId(request.project_id)!.entity);
    assertRefInProject(request.weave_ref, request.project_id);
    return this.insert(this.db, writer, request);
  }

  /**
   * Removes one feedback record (a reaction taken back, a note deleted), as Weave's feedback purge does for one id:
   * anyone who may write to the project may. A project id that is not `<entity>/<project>` is a 422 at the field.
   */
  async delete(writer: Writer, projectId: string, id: string): Promise<boolean> {
    const project = parseProjectId(projectId);
    if (!project) throw new ValidationFailedError([{ loc: ['projectId'], msg: 'projectId must be <entity>/<project>', type: 'value_error' }]);
    writer.assertWriter(project.entity);
    return feedbackStore.delete(this.db, projectId, id);
  }

  /** Also used by score creation, inside its transaction. */
  async insert(db: Kysely<TracingDatabase> | Transaction<TracingDatabase>, writer: Writer, request: FeedbackCreateBody): Promise<FeedbackRow> {
    const row = feedbackRowOf(writer.userId, request);
    await feedbackStore.insert(db, row);
    return row;
  }

  /** `query` is Weave's `{"$expr": …}` and `sortBy` its sort_by, over feedback fields; invalid ones are 422s. */
  query(projectId: string, options: { weaveRefs?: string[] | null; query?: unknown; sortBy?: SortByInput[] | null; limit: number; offset: number; descending: boolean }) {
    const { condition, sort } = compileQueryRequest(feedbackFields, options.query, options.sortBy);
    return feedbackStore.query(this.db, projectId, { ...options, condition, sort });
  }

  /**
   * `request` has the REST body's names and rules (validated here too, for GraphQL callers). `rollup: false` reads
   * only the feedback rows (the reference answer the rollup is tested against).
   */
  async aggregate(projectId: string, request: unknown, options: { rollup?: boolean } = {}): Promise<FeedbackAggregate> {
    const valid = validateOrThrow(FeedbackAggregateQuery, request, 'body');
    checkWindow(valid);
    const groupBy = dedupeGroupBy(valid.group_by ?? []);
    const bucketed = Boolean(valid.time_bucket_seconds);
    const merger = new BucketMerger(groupBy.length);
    const statement = feedbackStore.aggregateSourcesQuery(projectId, valid, options).compile(this.db);
    await streamRows(this.pool, statement.sql, statement.parameters, (row) => merger.add(row as SourceRow));
    const buckets = merger.buckets().map((bucket): FeedbackBucket => {
      const group: Record<string, string> = {};
      groupBy.forEach((name, index) => (group[name] = bucket.groups[index]!));
      return {
        time_bucket_start_ms: bucketed ? bucket.b : null,
        group,
        total_count: bucket.n,
        scored_count: bucket.scored,
        tag_counts: bucket.tagCounts,
        rating_counts: bucket.ratingCounts,
        rating_sums: bucket.ratingSums,
      };
    });
    const sorted = buckets.sort(compareBuckets(groupBy));
    if (!valid.time_bucket_seconds && groupBy.length === 0 && sorted.length === 0) {
      // Neither bucketed nor grouped: always exactly one (global) row.
      sorted.push({ time_bucket_start_ms: null, group: {}, total_count: 0, scored_count: 0, tag_counts: {}, rating_counts: {}, rating_sums: {} });
    }
    return { after_ms: valid.after_ms, before_ms: valid.before_ms, time_bucket_seconds: valid.time_bucket_seconds ?? null, buckets: sorted };
  }

  /**
   * How the `_rating_` values of the selected feedback are distributed, over their own range (the window and
   * filters of `request`, validated as for `aggregate`; buckets and groups are ignored).
   */
  async ratingHistogram(projectId: string, request: unknown, bins: number | null): Promise<RatingHistogramRows> {
    const valid = validateOrThrow(FeedbackAggregateQuery, request, 'body');
    checkWindow({ ...valid, time_bucket_seconds: undefined });
    const count = bins ?? RATING_HISTOGRAM_BINS.default;
    if (!Number.isInteger(count) || count < 1 || count > RATING_HISTOGRAM_BINS.max) {
      throw new BadRequestError(`bins must be a whole number from 1 to ${RATING_HISTOGRAM_BINS.max}`, { param: 'bins' });
    }
    return feedbackStore.ratingHistogram(this.db, projectId, valid, count, MAX_WHOLE_NUMBER_BINS);
  }
}

/** Bins of a rating histogram over a continuous range: the default, and the most a caller may ask for. */
/** The stored row of a feedback request by user `userId` (its derived columns: scorer, monitor, span type, ratings). */
export function feedbackRowOf(userId: string, request: FeedbackCreateBody): FeedbackRow {
  const ratings = Object.entries(request.scorer_ratings ?? {});
  const createdAt = new Date();
  const row: FeedbackRow = {
    project_id: request.project_id,
    id: uuidv7(),
    weave_ref: request.weave_ref,
    feedback_type: request.feedback_type,
    payload: request.payload,
    creator: request.creator ?? null,
    runnable_ref: request.runnable_ref ?? null,
    call_ref: request.call_ref ?? null,
    trigger_ref: request.trigger_ref ?? null,
    annotation_ref: request.annotation_ref ?? null,
    wb_user_id: userId,
    created_at: createdAt,
    created_ms: createdAt.getTime(),
    scorer_id: objectNameOfRef(request.runnable_ref),
    monitor_id: objectNameOfRef(request.trigger_ref),
    span_type: spanTypeOfRef(request.weave_ref),
    scorer_tags: request.scorer_tags ?? [],
    scorer_rating_names: ratings.map(([name]) => name),
    scorer_rating_values: ratings.map(([, value]) => value),
    rating: request.scorer_ratings?.[PRIMARY_RATING] ?? null,
    span_agent_name: request.span_agent_name ?? null,
    span_agent_version: request.span_agent_version ?? null,
    span_status_code: request.span_status_code ?? 'UNSET',
  };
  return row;
}

export const RATING_HISTOGRAM_BINS = { default: 10, max: 50 } as const;
/** Whole-number ratings get one bin per value up to this many values (a 1–5 or 0–10 scale). */
const MAX_WHOLE_NUMBER_BINS = 21;

/** Rules across fields, reported like schema violations (422, `loc` at the field to change). */
function checkWindow(request: AggregateRequest): void {
  if (request.before_ms <= request.after_ms) {
    throw new ValidationFailedError([{ loc: ['body', 'before_ms'], msg: 'before_ms must be greater than after_ms', type: 'value_error' }]);
  }
  if (request.time_bucket_seconds) {
    const buckets = Math.ceil((request.before_ms - request.after_ms) / (request.time_bucket_seconds * 1000));
    if (buckets > MAX_AGGREGATE_BUCKETS) {
      throw new ValidationFailedError([
        {
          loc: ['body', 'time_bucket_seconds'],
          msg: `The window holds ${buckets} buckets of ${request.time_bucket_seconds} s; at most ${MAX_AGGREGATE_BUCKETS} are allowed per request (use larger buckets or a shorter window)`,
          type: 'value_error',
        },
      ]);
    }
  }
}

function compareBuckets(groupBy: string[]) {
  return (a: FeedbackBucket, b: FeedbackBucket): number => {
    const byTime = (a.time_bucket_start_ms ?? 0) - (b.time_bucket_start_ms ?? 0);
    if (byTime !== 0) return byTime;
    for (const name of groupBy) {
      const x = a.group[name]!;
      const y = b.group[name]!;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}
