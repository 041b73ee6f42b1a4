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

/**
 * One row of the aggregation query per (bucket, group), its maps already built by PostgreSQL (so Node parses
 * one row per bucket, not one per bucket, tag and rating key). `b` is 0 when unbucketed.
 */
export interface AggregateRow {
  b: string | number;
  n: number;
  s: number;
  tag_counts: Record<string, number>;
  rating_counts: Record<string, number>;
  rating_sums: Record<string, number>;
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
   * The whole aggregation in one SQL statement. The window's whole hours are read from an hourly rollup (kept by
   * triggers in the feedback write's transaction) when the buckets are whole hours or absent; the partial hours at
   * the window's edges, and every window with other bucket sizes, are read from the feedback rows through the
   * (project_id, created_ms) index. Which rollup (see rollupSourceOf): tracing.feedback_hourly_groups, one row
   * per hour and group columns, when the request filters on nothing but group columns; otherwise
   * tracing.feedback_hourly, which has a column for every filter (its by-rating grain for rating bounds).
   *
   * Every source gives rows of one shape — bucket, group values, count, scored count, tag names with counts,
   * rating names with counts and sums — which are then grouped three ways: counts, tags, ratings.
   */
  async aggregate(db: Db, projectId: string, request: FeedbackAggregateQuery, options: { rollup?: boolean } = {}): Promise<AggregateRow[]> {
    const groupBy = dedupeGroupBy(request.group_by ?? []);
    const bucketMs = request.time_bucket_seconds ? request.time_bucket_seconds * 1000 : null;
    const groupColumns = groupBy.map((column, index) => sql`coalesce(${sql.ref(column)}, '') as ${sql.ref(`g${index}`)}`);
    const groupNames = groupBy.map((_, index) => sql.ref(`g${index}`));
    const keys = sql.join([sql.ref('b'), ...groupNames]);
    const filters = filtersOf(request);
    const where = filters.length ? sql`and ${sql.join(filters, sql` and `)}` : sql``;
    const keyColumns = (timeColumn: string) => {
      // Unbucketed: one constant bucket 0 (not null, so that the parts join on it).
      const bucket = bucketMs ? sql`(${sql.ref(timeColumn)} / ${sql.lit(bucketMs)}) * ${sql.lit(bucketMs)}` : sql`0::bigint`;
      return sql`${bucket} as b${groupColumns.length ? sql`, ${sql.join(groupColumns)}` : sql``}`;
    };
    // Rows that each stand for `n` identical feedback rows (raw rows: 1) carry no count arrays: each of their tag and
    // rating names counts `n` (unnest pads the missing counts with nulls; see the aggregation below).
    const perRowMaps = (sums: RawBuilder<unknown>) => sql`
      scorer_tags as tag_names, null::bigint[] as tag_counts, scorer_rating_names as rating_names, null::bigint[] as rating_counts, ${sums} as rating_sums`;
    const raw = (from: number, to: number) => sql`
      select ${keyColumns('created_ms')}, 1::bigint as n, (cardinality(scorer_tags) > 0 or cardinality(scorer_rating_names) > 0)::int::bigint as scored,
             ${perRowMaps(sql`scorer_rating_values::numeric[]`)}
      from tracing.feedback
      where project_id = ${projectId} and created_ms >= ${from} and created_ms < ${to} ${where}`;
    const hours = options.rollup === false ? null : wholeHoursOf(request.after_ms, request.before_ms, bucketMs);
    const rollup = (from: number, to: number) =>
      rollupSourceOf(request) === 'groups'
        ? sql`select ${keyColumns('hour_ms')}, n, scored, tag_names, tag_counts, rating_names, rating_counts, rating_sums
              from tracing.feedback_hourly_groups
              where project_id = ${projectId} and hour_ms >= ${from} and hour_ms < ${to} ${where}`
        : sql`select ${keyColumns('hour_ms')}, n, scored, ${perRowMaps(sql`rating_sums`)}
              from tracing.feedback_hourly
              where project_id = ${projectId} and by_rating = ${rollupSourceOf(request) === 'by-rating'} and hour_ms >= ${from} and hour_ms < ${to} ${where}`;
    const sources = hours
      ? [
          ...(request.after_ms < hours.from ? [raw(request.after_ms, hours.from)] : []),
          rollup(hours.from, hours.to),
          ...(hours.to < request.before_ms ? [raw(hours.to, request.before_ms)] : []),
        ]
      : [raw(request.after_ms, request.before_ms)];
    // Counts, tags and ratings are grouped separately (tags and rating keys are unnested) and joined back on the
    // bucket and group keys, so each bucket is one row whose maps are jsonb objects. Sums stay numeric until the
    // end (exact whatever the order), then become the float8 the API answers.
    const joinOn = (alias: string) => sql.join([sql`${sql.ref(`${alias}.b`)} = c.b`, ...groupBy.map((_, index) => sql`${sql.ref(`${alias}.g${index}`)} = ${sql.ref(`c.g${index}`)}`)], sql` and `);
    const result = await sql<AggregateRow>`
      with f as materialized (${sql.join(sources, sql` union all `)}),
      c as (select ${keys}, sum(n)::int as n, sum(scored)::int as s from f group by ${keys}),
      t as (
        select ${keys}, jsonb_object_agg(tag, n) as tag_counts
        from (select ${keys}, u.tag, sum(coalesce(u.n, f.n))::int as n
              from f cross join lateral unnest(f.tag_names, f.tag_counts) as u(tag, n) group by ${keys}, u.tag) per_tag
        group by ${keys}),
      r as (
        select ${keys}, jsonb_object_agg(name, n) as rating_counts, jsonb_object_agg(name, total::float8) as rating_sums
        from (select ${keys}, u.name, sum(coalesce(u.n, f.n))::int as n, sum(u.total) as total
              from f cross join lateral unnest(f.rating_names, f.rating_counts, f.rating_sums) as u(name, n, total) group by ${keys}, u.name) per_rating
        group by ${keys})
      select c.*, coalesce(t.tag_counts, '{}') as tag_counts, coalesce(r.rating_counts, '{}') as rating_counts, coalesce(r.rating_sums, '{}') as rating_sums
      from c left join t on ${joinOn('t')} left join r on ${joinOn('r')}`.execute(db);
    return result.rows;
  },
};

const HOUR_MS = 3_600_000;

/**
 * The rollup that answers a request's whole hours: `groups` (tracing.feedback_hourly_groups) when every filter is
 * on a column it keeps (scorer_id, span_agent_name; it keeps every group_by column), else feedback_hourly's
 * `by-rating` grain for rating bounds, else its `all-ratings` grain.
 */
export function rollupSourceOf(request: FeedbackAggregateQuery): 'groups' | 'by-rating' | 'all-ratings' {
  const given = (value: unknown) => value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
  if (given(request.rating_min) || given(request.rating_max)) return 'by-rating';
  if (given(request.feedback_types) || given(request.monitor_ids) || given(request.span_types) || given(request.tags)) return 'all-ratings';
  return 'groups';
}

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
