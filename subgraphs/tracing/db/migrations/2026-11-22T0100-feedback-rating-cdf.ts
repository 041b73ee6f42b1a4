import { sql, type Kysely } from 'kysely';

/**
 * Prefix sums over `_rating_` for /feedback/aggregate requests with rating bounds, so that a bound costs two binary
 * searches per rollup row instead of reading one rollup row per distinct rating (feedback_hourly's by-rating
 * grain: 131,760 rows for a month of the benchmark's data, against 10,800 here).
 *
 * One row per (project, hour, key) holds, for the feedback rows of that hour and key that carry a rating:
 * - `ratings`: their distinct ratings, ascending (P values);
 * - `cum_n`, `cum_scored`: P + 1 prefix sums — entry k + 1 counts the rows whose rating is ≤ ratings[k]
 *   (entry 1 is 0), so the rows with a rating in [min, max] are cum[hi + 1] - cum[lo + 1], where hi is the number
 *   of ratings ≤ max and lo the number < min (`width_bucket` on the sorted array);
 * - `tag_names` (T, sorted) and `cum_tag_counts`, (P + 1) × T prefix sums flattened row by row (entry k·T + j + 1
 *   is tag j's count over the first k ratings); likewise `rating_names` (R) with `cum_rating_counts` and
 *   `cum_rating_sums` (numeric: exact, so differences of prefix sums are exact).
 *
 * Two grains, like feedback_hourly's: `by_dims = false`, one row per hour and group columns (scorer_id,
 * span_agent_name, span_agent_version, span_status_code; the other dimension columns are null), for requests that
 * filter only on those and the rating; `by_dims = true`, one row per hour and every filterable column (tags as a
 * set), for requests with other filters. `group_key` (SHA-256 of the group columns) is kept on both.
 *
 * Maintenance: after feedback_hourly's triggers (PostgreSQL runs a table's triggers for one event in name order,
 * and `feedback_rating_cdf_*` sorts after `feedback_hourly_*`), each statement recomputes the rows of the (hour,
 * group) pairs it touched from feedback_hourly's by-rating grain — bounded by the distinct dimension values of an
 * hour, not by its feedback volume. Prefix sums cannot be adjusted by adding a delta the way the other rollups are,
 * so concurrent writers to one (hour, group) are serialized by a transaction-scoped advisory lock taken in one
 * order, and the recompute (a new statement, so a new snapshot at READ COMMITTED) then sees every committed write.
 * Under REPEATABLE READ or SERIALIZABLE the snapshot would be older than the lock, so writes at those levels are
 * refused rather than allowed to store a stale recompute.
 */
const HOUR_MS = 3_600_000;
const GROUP_COLUMNS = ['scorer_id', 'span_agent_name', 'span_agent_version', 'span_status_code'] as const;
const DIMS_COLUMNS = ['feedback_type', 'scorer_id', 'monitor_id', 'span_type', 'span_agent_name', 'span_agent_version', 'span_status_code', 'scorer_tags'] as const;
const ATTRIBUTE_COLUMNS = ['feedback_type', 'scorer_id', 'monitor_id', 'span_type', 'span_agent_name', 'span_agent_version', 'span_status_code', 'scorer_tags'] as const;

const groupKeyOf = (alias: string) => `sha256(convert_to(jsonb_build_array(${GROUP_COLUMNS.map((c) => `${alias}.${c}`).join(', ')})::text, 'UTF8'))`;
const dimsKeyOf = (alias: string) => `sha256(convert_to(jsonb_build_array(${DIMS_COLUMNS.map((c) => `${alias}.${c}`).join(', ')})::text, 'UTF8'))`;

/** The (project, hour, group) pairs that the feedback rows of `sources` (transition tables) fall in. */
function affectedOf(sources: string[]): string {
  const columns = `project_id, created_ms / ${HOUR_MS} * ${HOUR_MS} as hour_ms, ${GROUP_COLUMNS.join(', ')}`;
  // Distinct first, hashed after: a bulk statement touches few (hour, group) pairs.
  return `select project_id, hour_ms, ${groupKeyOf('f')} as group_key
    from (${sources.map((source) => `select distinct ${columns} from ${source}`).join(' union ')}) f`;
}

/** SQL that rebuilds the rows of the (hour, group) pairs in `affected` (a query) from feedback_hourly's by-rating grain. */
function rebuild(affected: string): string {
  // Rows are numbered per row key (k) once, so that the groupings and windows below work on one integer.
  const key = 'k';
  return `
    with affected as (${affected}),
    -- A lateral lookup per touched hour (feedback_hourly's primary key), each by-rating row's group hashed once.
    by_rating as (
      select h.*, ${groupKeyOf('h')} as group_key
      from (select distinct project_id, hour_ms from affected) ah
      cross join lateral (select * from tracing.feedback_hourly h
                          where h.project_id = ah.project_id and h.by_rating and h.hour_ms = ah.hour_ms and h.rating is not null
                          offset 0) h -- (not flattened into a join: it stays a lookup per hour)
    ),
    keyed as (
      select b.project_id, g.by_dims, b.hour_ms, case when g.by_dims then ${dimsKeyOf('b')} else b.group_key end as key, b.group_key,
             ${ATTRIBUTE_COLUMNS.map((c) => (GROUP_COLUMNS.includes(c as never) ? `b.${c}` : `case when g.by_dims then b.${c} end as ${c}`)).join(', ')},
             b.rating, b.n, b.scored, b.scorer_tags as tags, b.scorer_rating_names, b.rating_sums
      from by_rating b join affected a using (project_id, hour_ms, group_key) cross join (values (false), (true)) as g(by_dims)
    ),
    src as (select *, dense_rank() over (order by project_id, by_dims, hour_ms, key) as k from keyed),
    points as (select ${key}, rating, sum(n)::bigint as n, sum(scored)::bigint as scored from src group by ${key}, rating),
    cum as (
      select ${key}, array_agg(rating order by rating) as ratings,
             array[0::bigint] || array_agg(cn order by rating) as cum_n, array[0::bigint] || array_agg(cs order by rating) as cum_scored
      from (select *, (sum(n) over w)::bigint as cn, (sum(scored) over w)::bigint as cs from points window w as (partition by ${key} order by rating)) p
      group by ${key}
    ),
    tag_at as (select ${key}, rating, u.tag, sum(n)::bigint as c from src cross join lateral unnest(src.tags) as u(tag) group by ${key}, rating, u.tag),
    tag_list as (select ${key}, array_agg(distinct tag order by tag) as names from tag_at group by ${key}),
    tag_cum as (
      select ${key}, array_agg(cc order by rating, tag) as matrix
      from (select p.k, p.rating, t.tag,
                   (sum(coalesce(o.c, 0)) over (partition by p.k, t.tag order by p.rating))::bigint as cc
            from points p
            join (select ${key}, unnest(names) as tag from tag_list) t using (${key})
            left join tag_at o using (${key}, rating, tag)) m
      group by ${key}
    ),
    rating_at as (
      select ${key}, rating, u.name, sum(n)::bigint as c, sum(u.total) as s
      from src cross join lateral unnest(src.scorer_rating_names, src.rating_sums) as u(name, total) group by ${key}, rating, u.name
    ),
    rating_list as (select ${key}, array_agg(distinct name order by name) as names from rating_at group by ${key}),
    rating_cum as (
      select ${key}, array_agg(cc order by rating, name) as counts, array_agg(cs order by rating, name) as sums
      from (select p.k, p.rating, r.name,
                   (sum(coalesce(o.c, 0)) over w)::bigint as cc, sum(coalesce(o.s, 0)) over w as cs
            from points p
            join (select ${key}, unnest(names) as name from rating_list) r using (${key})
            left join rating_at o using (${key}, rating, name)
            window w as (partition by p.k, r.name order by p.rating)) m
      group by ${key}
    ),
    attributes as (select distinct on (k) k, project_id, by_dims, hour_ms, key, group_key, ${ATTRIBUTE_COLUMNS.join(', ')} from src order by k)
    insert into tracing.feedback_rating_cdf (project_id, by_dims, hour_ms, key, group_key, ${ATTRIBUTE_COLUMNS.join(', ')}, ratings, cum_n, cum_scored,
      tag_names, cum_tag_counts, rating_names, cum_rating_counts, cum_rating_sums)
    select a.project_id, a.by_dims, a.hour_ms, a.key, a.group_key, ${ATTRIBUTE_COLUMNS.map((c) => `a.${c}`).join(', ')}, c.ratings, c.cum_n, c.cum_scored,
           coalesce(tl.names, '{}'), coalesce(array_fill(0::bigint, array[coalesce(cardinality(tl.names), 0)]) || tc.matrix, '{}'),
           coalesce(rl.names, '{}'), coalesce(array_fill(0::bigint, array[coalesce(cardinality(rl.names), 0)]) || rc.counts, '{}'),
           coalesce(array_fill(0::numeric, array[coalesce(cardinality(rl.names), 0)]) || rc.sums, '{}')
    from attributes a join cum c using (${key})
      left join tag_list tl using (${key}) left join tag_cum tc using (${key})
      left join rating_list rl using (${key}) left join rating_cum rc using (${key})
    order by a.k`;
}

/** The trigger's work for the rows of `sources`: lock the touched (hour, group) pairs in one order, drop, rebuild. */
function recompute(sources: string[]): string {
  const affected = affectedOf(sources);
  return `
    perform pg_advisory_xact_lock(hashtext('tracing.feedback_rating_cdf'), hashtext(a.project_id || ':' || a.hour_ms || ':' || encode(a.group_key, 'hex')))
      from (select distinct project_id, hour_ms, group_key from (${affected}) s order by 1, 2, 3) a;
    delete from tracing.feedback_rating_cdf c using (${affected}) a
      where c.project_id = a.project_id and c.hour_ms = a.hour_ms and c.group_key = a.group_key;
    ${rebuild(affected)};`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table tracing.feedback_rating_cdf (
      project_id text not null,
      by_dims boolean not null,
      hour_ms bigint not null,
      -- by_dims: SHA-256 of every dimension column; otherwise the group key.
      key bytea not null,
      group_key bytea not null,
      feedback_type text,
      scorer_id text,
      monitor_id text,
      span_type text,
      span_agent_name text,
      span_agent_version text,
      span_status_code text,
      scorer_tags text[],
      ratings double precision[] not null,
      cum_n bigint[] not null,
      cum_scored bigint[] not null,
      tag_names text[] not null,
      cum_tag_counts bigint[] not null,
      rating_names text[] not null,
      cum_rating_counts bigint[] not null,
      cum_rating_sums numeric[] not null,
      primary key (project_id, by_dims, hour_ms, key)
    )
    -- Rows up to a page are stored as they are: the default (compress above 2 kB) compressed most rows here, and a
    -- read detoasts each array for every reference (two binary searches and six slices per row) — 3x the read cost.
    with (toast_tuple_target = 8160)`.execute(db);

  await sql`lock table tracing.feedback in share row exclusive mode`.execute(db);
  await sql
    .raw(
      `create function tracing.feedback_rating_cdf_apply() returns trigger language plpgsql as $$
      begin
        if current_setting('transaction_isolation') <> 'read committed' then
          raise exception 'feedback writes must run at READ COMMITTED (tracing.feedback_rating_cdf is recomputed from committed rows)'
            using errcode = 'feature_not_supported';
        end if;
        if tg_op = 'INSERT' then
          ${recompute(['new_rows'])}
        elsif tg_op = 'DELETE' then
          ${recompute(['old_rows'])}
        else
          ${recompute(['old_rows', 'new_rows'])}
        end if;
        return null;
      end $$
      -- The statements join small intermediate results whose sizes PostgreSQL cannot estimate (it guesses one row,
      -- and nested loops over thousands of rows took minutes); hash joins are right at every size. The per-hour
      -- lookup is a lateral subquery, which stays an index scan.
      set enable_nestloop = off`,
    )
    .execute(db);
  await sql`create trigger feedback_rating_cdf_insert after insert on tracing.feedback referencing new table as new_rows
    for each statement execute function tracing.feedback_rating_cdf_apply()`.execute(db);
  await sql`create trigger feedback_rating_cdf_delete after delete on tracing.feedback referencing old table as old_rows
    for each statement execute function tracing.feedback_rating_cdf_apply()`.execute(db);
  await sql`create trigger feedback_rating_cdf_update after update on tracing.feedback referencing old table as old_rows new table as new_rows
    for each statement execute function tracing.feedback_rating_cdf_apply()`.execute(db);

  // Feedback written before this migration (writers are locked out until the migration commits).
  await sql`set local enable_nestloop = off`.execute(db);
  await sql.raw(rebuild(`select distinct project_id, hour_ms, ${groupKeyOf('h')} as group_key from tracing.feedback_hourly h where h.by_rating`)).execute(db);
  await sql`reset enable_nestloop`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const event of ['insert', 'delete', 'update']) await sql.raw(`drop trigger if exists feedback_rating_cdf_${event} on tracing.feedback`).execute(db);
  await sql`drop function if exists tracing.feedback_rating_cdf_apply()`.execute(db);
  await sql`drop table if exists tracing.feedback_rating_cdf`.execute(db);
}
