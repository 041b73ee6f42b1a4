import { sql, type Kysely, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import { orderByFields } from '../query/query-request.js';
import type { SortDirection } from '../query/query-sql.js';
import { feedbackFields } from './feedback-fields.js';
import type { FeedbackTable, TracingDatabase } from '../db/database.js';
import type { FeedbackAggregateQuery, FeedbackGroupBy } from './feedback.schemas.js';

type Db = Kysely<TracingDatabase> | Transaction<TracingDatabase>;

export interface FeedbackSearch {
  weaveRefs?: string[] | null;
  condition?: RawBuilder<SqlBool> | null;
  sort?: { field: string; direction: SortDirection }[];
  limit: number;
  offset: number;
  descending: boolean;
}

export type FeedbackRow = Omit<FeedbackTable, 'created_at'> & { created_at: Date };

/** One row of the aggregation query: a base row per (bucket, group), then one row per tag and per rating key. */
interface AggregateRow {
  part: number;
  b: number | null;
  key: string | null;
  n: number;
  s: number | null;
  [group: `g${number}`]: string;
}

export const feedbackStore = {
  async insert(db: Db, row: Omit<FeedbackTable, 'created_at'> & { created_at: Date }): Promise<void> {
    await db.insertInto('feedback').values({ ...row, payload: JSON.stringify(row.payload) as never }).execute();
  },

  /** Feedback of a project: by refs and a compiled `query`, in `sort_by` order, then oldest (newest) first. */
  async query(db: Db, projectId: string, options: FeedbackSearch) {
    let query = db.selectFrom('feedback').selectAll().where('project_id', '=', projectId);
    if (options.weaveRefs?.length) query = query.where('weave_ref', 'in', options.weaveRefs);
    if (options.condition) query = query.where(options.condition);
    for (const term of orderByFields(feedbackFields, options.sort ?? [])) {
      query = query.orderBy(term.sql, (ob) => (term.direction === 'asc' ? ob.asc().nullsLast() : ob.desc().nullsLast()));
    }
    const direction = options.descending ? 'desc' : 'asc';
    return (await query.orderBy('created_ms', direction).orderBy('id', direction).limit(options.limit).offset(options.offset).execute()) as FeedbackRow[];
  },

  /**
   * The whole aggregation in one SQL statement. The window's whole hours are read from the hourly rollup
   * (tracing.feedback_hourly, kept by triggers in the feedback write's transaction) when the buckets are whole
   * hours or absent; the partial hours at the window's edges, and every window with other bucket sizes, are read
   * from the feedback rows through the (project_id, created_ms) index. Both sources give rows of the same shape
   * (a raw row counts 1), which are then grouped three ways — counts, tags, ratings. Every filter has a column in
   * the rollup; rating bounds use its by-rating grain (one row per `_rating_` value).
   */
  async aggregate(db: Db, projectId: string, request: FeedbackAggregateQuery, options: { rollup?: boolean } = {}): Promise<AggregateRow[]> {
    const groupBy = dedupeGroupBy(request.group_by ?? []);
    const bucketMs = request.time_bucket_seconds ? request.time_bucket_seconds * 1000 : null;
    const groupColumns = groupBy.map((column, index) => sql`coalesce(${sql.ref(column)}, '') as ${sql.ref(`g${index}`)}`);
    const groupNames = groupBy.map((_, index) => sql.ref(`g${index}`));
    const keys = sql.join([sql.ref('b'), ...groupNames]);
    const filters = filtersOf(request);
    const where = filters.length ? sql`and ${sql.join(filters, sql` and `)}` : sql``;
    const selected = (timeColumn: string) => {
      const bucket = bucketMs ? sql`(${sql.ref(timeColumn)} / ${sql.lit(bucketMs)}) * ${sql.lit(bucketMs)}` : sql`null::bigint`;
      return sql`${bucket} as b${groupColumns.length ? sql`, ${sql.join(groupColumns)}` : sql``}, scorer_tags, scorer_rating_names`;
    };
    const raw = (from: number, to: number) => sql`
      select ${selected('created_ms')}, scorer_rating_values::numeric[] as rating_sums, 1::bigint as n,
             (cardinality(scorer_tags) > 0 or cardinality(scorer_rating_names) > 0)::int::bigint as scored
      from tracing.feedback
      where project_id = ${projectId} and created_ms >= ${from} and created_ms < ${to} ${where}`;
    const hours = options.rollup === false ? null : wholeHoursOf(request.after_ms, request.before_ms, bucketMs);
    const byRating = request.rating_min !== undefined && request.rating_min !== null || request.rating_max !== undefined && request.rating_max !== null;
    const sources = hours
      ? [
          ...(request.after_ms < hours.from ? [raw(request.after_ms, hours.from)] : []),
          sql`select ${selected('hour_ms')}, rating_sums, n, scored
              from tracing.feedback_hourly
              where project_id = ${projectId} and by_rating = ${byRating} and hour_ms >= ${hours.from} and hour_ms < ${hours.to} ${where}`,
          ...(hours.to < request.before_ms ? [raw(hours.to, request.before_ms)] : []),
        ]
      : [raw(request.after_ms, request.before_ms)];
    const result = await sql<AggregateRow>`
      with f as materialized (${sql.join(sources, sql` union all `)})
      select 0 as part, ${keys}, null::text as key, sum(n)::int as n, sum(scored)::int as s
        from f group by ${keys}
      union all
      select 1, ${keys}, t.tag, sum(n)::int, null
        from f cross join lateral unnest(f.scorer_tags) as t(tag) group by ${keys}, t.tag
      union all
      select 2, ${keys}, r.name, sum(n)::int, sum(r.value)::float8
        from f cross join lateral unnest(f.scorer_rating_names, f.rating_sums) as r(name, value)
        group by ${keys}, r.name`.execute(db);
    return result.rows;
  },
};

const HOUR_MS = 3_600_000;

/**
 * The whole hours of [afterMs, beforeMs) that the rollup can answer: only when each hour falls in one bucket
 * (no buckets, or buckets that are whole hours — buckets are epoch-aligned). Null when there are none.
 */
export function wholeHoursOf(afterMs: number, beforeMs: number, bucketMs: number | null): { from: number; to: number } | null {
  if (bucketMs !== null && bucketMs % HOUR_MS !== 0) return null;
  const from = Math.ceil(afterMs / HOUR_MS) * HOUR_MS;
  const to = Math.floor(beforeMs / HOUR_MS) * HOUR_MS;
  return from < to ? { from, to } : null;
}

export function dedupeGroupBy(groupBy: FeedbackGroupBy[]): FeedbackGroupBy[] {
  return [...new Set(groupBy)];
}

/** `value*` is a prefix match, anything else exact. */
function exactOrPrefix(column: string, values: string[] | undefined): RawBuilder<unknown> | null {
  if (!values || values.length === 0) return null;
  const exact = values.filter((value) => !value.endsWith('*'));
  const prefixes = values.filter((value) => value.endsWith('*')).map((value) => value.slice(0, -1));
  const parts = [
    ...(exact.length ? [sql`${sql.ref(column)} = any(${exact}::text[])`] : []),
    ...prefixes.map((prefix) => sql`starts_with(${sql.ref(column)}, ${prefix})`),
  ];
  return sql`(${sql.join(parts, sql` or `)})`;
}

function filtersOf(request: FeedbackAggregateQuery): RawBuilder<unknown>[] {
  const filters: (RawBuilder<unknown> | null)[] = [];
  if (request.feedback_types?.length) {
    // Prefix match on feedback_type; a trailing `*` is dropped first.
    const prefixes = request.feedback_types.map((type) => type.replace(/\*$/, ''));
    filters.push(sql`(${sql.join(prefixes.map((prefix) => sql`starts_with(feedback_type, ${prefix})`), sql` or `)})`);
  }
  filters.push(exactOrPrefix('scorer_id', request.scorer_ids));
  filters.push(exactOrPrefix('monitor_id', request.monitor_ids));
  if (request.span_types?.length) filters.push(sql`span_type = any(${request.span_types}::text[])`);
  if (request.tags?.length) filters.push(sql`scorer_tags && ${request.tags}::text[]`);
  if (request.span_agent_names?.length) filters.push(sql`span_agent_name = any(${request.span_agent_names}::text[])`);
  if (request.rating_min !== undefined && request.rating_min !== null) filters.push(sql`rating >= ${request.rating_min}`);
  if (request.rating_max !== undefined && request.rating_max !== null) filters.push(sql`rating <= ${request.rating_max}`);
  return filters.filter((filter): filter is RawBuilder<unknown> => filter !== null);
}
