import { sql, type Kysely, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import { orderByFields } from '../query/query-request.js';
import type { SortDirection } from '../query/query-sql.js';
import { feedbackFields } from './feedback-fields.js';
import type { FeedbackTable, TracingDatabase } from '../db/database.js';
import type { FeedbackAggregateQuery, FeedbackGroupBy } from './feedback.schemas.js';
import type { SourceRow } from './bucket-merge.js';

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

export const feedbackStore = {
  async insert(db: Db, row: Omit<FeedbackTable, 'created_at'> & { created_at: Date }): Promise<void> {
    await db.insertInto('feedback').values({ ...row, payload: JSON.stringify(row.payload) as never }).execute();
  },

  /** Several records in one statement (the rollup triggers then run once for all of them). */
  async insertMany(db: Db, rows: (Omit<FeedbackTable, 'created_at'> & { created_at: Date })[]): Promise<void> {
    if (rows.length === 0) return;
    await db.insertInto('feedback').values(rows.map((row) => ({ ...row, payload: JSON.stringify(row.payload) as never }))).execute();
  },

  /** Feedback of a project: by refs and a compiled `query`, in `sort_by` order, then oldest (newest) first. */
  /** Deletes one record; resolves with whether it existed. The rollups follow through their delete triggers. */
  async delete(db: Db, projectId: string, id: string): Promise<boolean> {
    const result = await db.deleteFrom('feedback').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

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
   * The rows the aggregation adds up, in one SQL statement (FeedbackService streams them); BucketMerger
   * (bucket-merge.ts) adds them up per bucket and group. The window's whole hours are read from an hourly rollup
   * (kept by triggers in the feedback write's transaction) when the buckets are whole hours or absent; the partial
   * hours at the window's edges, and every window with other bucket sizes, are read from the feedback rows through
   * the (project_id, created_ms) index and aggregated per bucket and group here (so a long raw window sends
   * buckets, not rows). Which rollup: see rollupSourceOf.
   *
   * Every source gives rows of one shape (SourceRow) — bucket, group values, count, scored count, and its maps
   * rendered as text by the functions of migration 2026-11-22T0300 (the rollups store them rendered). Rating sums
   * travel as numeric text and are added exactly.
   */
  aggregateSourcesQuery(projectId: string, request: FeedbackAggregateQuery, options: { rollup?: boolean } = {}): RawBuilder<SourceRow> {
    const groupBy = dedupeGroupBy(request.group_by ?? []);
    const bucketMs = request.time_bucket_seconds ? request.time_bucket_seconds * 1000 : null;
    const groupColumns = groupBy.map((column, index) => sql`coalesce(${sql.ref(column)}, '') as ${sql.ref(`g${index}`)}`);
    const keys = sql.join([sql.ref('b'), ...groupBy.map((_, index) => sql.ref(`g${index}`))]);
    const filters = filtersOf(request);
    const where = filters.length ? sql`and ${sql.join(filters, sql` and `)}` : sql``;
    const keyColumns = (timeColumn: string) => {
      // Unbucketed: one constant bucket 0.
      const bucket = bucketMs ? sql`(${sql.ref(timeColumn)} / ${sql.lit(bucketMs)}) * ${sql.lit(bucketMs)}` : sql`0::bigint`;
      return sql`${bucket} as b${groupColumns.length ? sql`, ${sql.join(groupColumns)}` : sql``}`;
    };
    // Feedback rows aggregated per bucket and group: counts, then tags and ratings unnested and grouped per name.
    const raw = (from: number, to: number) => sql`
      select * from (
        with f as materialized (
          select ${keyColumns('created_ms')}, scorer_tags, scorer_rating_names, scorer_rating_values,
                 cardinality(scorer_tags) > 0 or cardinality(scorer_rating_names) > 0 as is_scored
          from tracing.feedback
          where project_id = ${projectId} and created_ms >= ${from} and created_ms < ${to} ${where}),
        c as (select ${keys}, count(*) as n, count(*) filter (where is_scored) as scored from f group by ${keys}),
        t as (
          select ${keys}, array_agg(tag) as names, array_agg(n) as counts
          from (select ${keys}, u.tag, count(*) as n from f cross join lateral unnest(f.scorer_tags) as u(tag) group by ${keys}, u.tag) per_tag
          group by ${keys}),
        r as (
          select ${keys}, array_agg(name) as names, array_agg(n) as counts, array_agg(total) as sums
          from (select ${keys}, u.name, count(*) as n, sum(u.value::numeric) as total
                from f cross join lateral unnest(f.scorer_rating_names, f.scorer_rating_values) as u(name, value) group by ${keys}, u.name) per_rating
          group by ${keys})
        select ${keys}, c.n, c.scored,
               tracing.render_names(coalesce(t.names, '{}'), coalesce(r.names, '{}')) as names,
               tracing.render_maps(coalesce(t.counts, '{}'), coalesce(r.counts, '{}'), coalesce(r.sums, '{}')) as maps, null::text as below
        from c left join t using (${keys}) left join r using (${keys})
      ) as raw_rows`;
    const hours = options.rollup === false ? null : wholeHoursOf(request.after_ms, request.before_ms, bucketMs);
    const rollup = (from: number, to: number) => {
      const source = rollupSourceOf(request);
      if (source === 'groups') {
        return sql`select ${keyColumns('hour_ms')}, n, scored, names, maps, null::text as below
                   from tracing.feedback_hourly_groups
                   where project_id = ${projectId} and hour_ms >= ${from} and hour_ms < ${to} ${where}`;
      }
      if (source === 'all-ratings') {
        return sql`select ${keyColumns('hour_ms')}, n, scored, names, maps, null::text as below
                   from tracing.feedback_hourly
                   where project_id = ${projectId} and not by_rating and hour_ms >= ${from} and hour_ms < ${to} ${where}`;
      }
      return ratingRangeRows(projectId, request, source === 'cdf-dims', from, to, keyColumns('hour_ms'));
    };
    const sources = hours
      ? [
          ...(request.after_ms < hours.from ? [raw(request.after_ms, hours.from)] : []),
          rollup(hours.from, hours.to),
          ...(hours.to < request.before_ms ? [raw(hours.to, request.before_ms)] : []),
        ]
      : [raw(request.after_ms, request.before_ms)];
    return sql<SourceRow>`${sql.join(sources, sql` union all `)}`;
  },

  /**
   * The `_rating_` values of the feedback a request selects (its window and filters, no buckets or groups): their
   * range, whether all are whole numbers, and how many fall in each bin — one bin per whole number when all are
   * whole and span at most `maxWholeBins` values (a 1–5 scale gets five), else `bins` equal bins over the range
   * (the last one closed). Read from the feedback rows through the (project_id, created_ms) index.
   */
  async ratingHistogram(db: Db, projectId: string, request: FeedbackAggregateQuery, bins: number, maxWholeBins: number): Promise<RatingHistogramRows> {
    const filters = filtersOf(request);
    const where = sql`project_id = ${projectId} and created_ms >= ${request.after_ms} and created_ms < ${request.before_ms} and rating is not null
      ${filters.length ? sql`and ${sql.join(filters, sql` and `)}` : sql``}`;
    const range = await sql<{ lo: number | null; hi: number | null; n: number; whole: boolean | null }>`
      select min(rating) as lo, max(rating) as hi, count(*)::int as n, bool_and(rating = trunc(rating)) as whole
      from tracing.feedback where ${where}`.execute(db);
    const { lo, hi, n, whole } = range.rows[0]!;
    if (lo === null || hi === null || n === 0) return { min: null, max: null, count: 0, wholeNumbers: false, bins: [] };
    const wholeNumbers = Boolean(whole) && hi - lo + 1 <= maxWholeBins;
    if (wholeNumbers) {
      const counts = await sql<{ v: number; n: number }>`select rating as v, count(*)::int as n from tracing.feedback where ${where} group by rating`.execute(db);
      const byValue = new Map(counts.rows.map((row) => [Number(row.v), row.n]));
      return { min: lo, max: hi, count: n, wholeNumbers, bins: Array.from({ length: hi - lo + 1 }, (_, index) => ({ low: lo + index, high: lo + index, count: byValue.get(lo + index) ?? 0 })) };
    }
    const binCount = lo === hi ? 1 : bins;
    const width = (hi - lo) / binCount;
    const counts = await sql<{ b: number; n: number }>`
      select ${lo === hi ? sql`1` : sql`least(width_bucket(rating, ${lo}::float8, ${hi}::float8, ${binCount}), ${binCount})`} as b, count(*)::int as n
      from tracing.feedback where ${where} group by 1`.execute(db);
    const byBin = new Map(counts.rows.map((row) => [Number(row.b), row.n]));
    return {
      min: lo,
      max: hi,
      count: n,
      wholeNumbers,
      bins: Array.from({ length: binCount }, (_, index) => ({ low: lo + index * width, high: index === binCount - 1 ? hi : lo + (index + 1) * width, count: byBin.get(index + 1) ?? 0 })),
    };
  },
};

export interface RatingHistogramRows {
  min: number | null;
  max: number | null;
  count: number;
  wholeNumbers: boolean;
  bins: { low: number; high: number; count: number }[];
}

const HOUR_MS = 3_600_000;

/**
 * The rollup that answers a request's whole hours: `groups` (tracing.feedback_hourly_groups) when every filter is
 * on a column it keeps (scorer_id, span_agent_name; it keeps every group_by column), else feedback_hourly's
 * `all-ratings` grain; with rating bounds, the prefix sums of tracing.feedback_rating_cdf, at its per-group grain
 * (`cdf-groups`) or, with other filters, its per-dimensions grain (`cdf-dims`).
 */
export function rollupSourceOf(request: FeedbackAggregateQuery): 'groups' | 'all-ratings' | 'cdf-groups' | 'cdf-dims' {
  const given = (value: unknown) => value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
  const otherFilters = given(request.feedback_types) || given(request.monitor_ids) || given(request.span_types) || given(request.tags);
  if (given(request.rating_min) || given(request.rating_max)) return otherFilters ? 'cdf-dims' : 'cdf-groups';
  return otherFilters ? 'all-ratings' : 'groups';
}

/**
 * Rows of tracing.feedback_rating_cdf restricted to the request's rating bounds: per row, `hi` = the number of its
 * ratings ≤ rating_max and `lo` = the number < rating_min (binary searches: width_bucket counts the entries ≤ its
 * operand; one equal to rating_min is taken back out), so its rows in range are prefix sum hi minus prefix sum lo.
 * The maps go out as the two rendered prefix sums (none below when lo = 0); BucketMerger subtracts them (exactly,
 * for the numeric sums).
 */
function ratingRangeRows(projectId: string, request: FeedbackAggregateQuery, byDims: boolean, from: number, to: number, keyColumns: RawBuilder<unknown>) {
  const min = request.rating_min ?? null;
  const max = request.rating_max ?? null;
  const lo = min === null ? sql`0` : sql`width_bucket(${min}::float8, c.ratings) - coalesce((c.ratings[width_bucket(${min}::float8, c.ratings)] = ${min}::float8)::int, 0)`;
  const hi = max === null ? sql`cardinality(c.ratings)` : sql`width_bucket(${max}::float8, c.ratings)`;
  const filters = filtersOf({ ...request, rating_min: null, rating_max: null });
  const where = filters.length ? sql`and ${sql.join(filters, sql` and `)}` : sql``;
  return sql`
    select ${keyColumns}, x.n, x.scored, x.names, x.cum_maps[x.hi + 1] as maps, case when x.lo > 0 then x.cum_maps[x.lo + 1] end as below
    from (
      select c.*, k.hi, k.lo, c.cum_n[k.hi + 1] - c.cum_n[k.lo + 1] as n, c.cum_scored[k.hi + 1] - c.cum_scored[k.lo + 1] as scored
      from tracing.feedback_rating_cdf c cross join lateral (select ${hi} as hi, ${lo} as lo) k
      where c.project_id = ${projectId} and c.by_dims = ${byDims} and c.hour_ms >= ${from} and c.hour_ms < ${to} ${where}
    ) x
    where x.n > 0`;
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
