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
   * The whole aggregation in one SQL statement: the window is read through the (project_id, created_ms) index
   * once (a CTE referenced three times is materialised), then grouped three ways — counts, tags, ratings.
   */
  async aggregate(db: Db, projectId: string, request: FeedbackAggregateQuery): Promise<AggregateRow[]> {
    const groupBy = dedupeGroupBy(request.group_by ?? []);
    const bucketMs = request.time_bucket_seconds ? request.time_bucket_seconds * 1000 : null;
    const bucket = bucketMs ? sql`(created_ms / ${sql.lit(bucketMs)}) * ${sql.lit(bucketMs)}` : sql`null::bigint`;
    const groupColumns = groupBy.map((column, index) => sql`coalesce(${sql.ref(column)}, '') as ${sql.ref(`g${index}`)}`);
    const groupNames = groupBy.map((_, index) => sql.ref(`g${index}`));
    const keys = sql.join([sql.ref('b'), ...groupNames]);
    const filters = filtersOf(request);
    const result = await sql<AggregateRow>`
      with f as materialized (
        select ${bucket} as b${groupColumns.length ? sql`, ${sql.join(groupColumns)}` : sql``},
               scorer_tags, scorer_rating_names, scorer_rating_values
        from tracing.feedback
        where project_id = ${projectId} and created_ms >= ${request.after_ms} and created_ms < ${request.before_ms}
        ${filters.length ? sql`and ${sql.join(filters, sql` and `)}` : sql``}
      )
      select 0 as part, ${keys}, null::text as key, count(*)::int as n,
             count(*) filter (where cardinality(scorer_tags) > 0 or cardinality(scorer_rating_names) > 0)::int as s
        from f group by ${keys}
      union all
      select 1, ${keys}, t.tag, count(*)::int, null
        from f cross join lateral unnest(f.scorer_tags) as t(tag) group by ${keys}, t.tag
      union all
      select 2, ${keys}, r.name, count(*)::int, sum(r.value)
        from f cross join lateral unnest(f.scorer_rating_names, f.scorer_rating_values) as r(name, value)
        group by ${keys}, r.name`.execute(db);
    return result.rows;
  },
};

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
