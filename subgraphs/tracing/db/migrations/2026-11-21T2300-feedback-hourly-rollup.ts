import { sql, type Kysely } from 'kysely';

/**
 * Hourly rollup of feedback for /feedback/aggregate: one row per (project, hour, every column the aggregation
 * filters or groups on), holding the row count, the scored count and per-rating-name sums. It is maintained by
 * statement-level triggers on tracing.feedback, so it changes in the same transaction as the feedback rows
 * (exact and consistent whoever writes: a rolled-back write changes neither), and bulk inserts are rolled up per
 * statement rather than per row.
 *
 * Two grains live in the table: `by_rating = false` rolls every `_rating_` value together (rating is null), and
 * `by_rating = true` keeps one row per exact `_rating_` value, for requests with rating bounds.
 *
 * Rows are keyed by a SHA-256 of the dimension values rather than by the values themselves, since tag arrays
 * can exceed a btree entry. Rating sums are numeric (each float8 value as PostgreSQL converts it), so that adding
 * per-hour sums gives the same result as summing the raw rows in any order.
 */
export const DIMENSIONS = [
  'feedback_type',
  'scorer_id',
  'monitor_id',
  'span_type',
  'span_agent_name',
  'span_agent_version',
  'span_status_code',
  'scorer_tags',
  'scorer_rating_names',
] as const;

export const HOUR_MS = 3_600_000;

/**
 * SQL that adds (sign 1) or subtracts (sign -1) the rows of `source` (a relation with the feedback columns) to
 * or from the rollup. Rating sums are summed per array position (rows of one group share their rating names).
 */
export function applyRows(source: string, sign: 1 | -1): string {
  const dims = DIMENSIONS.join(', ');
  // The rating goes in as its 8 bytes: its text form depends on the session's extra_float_digits.
  const keyOf = `sha256(convert_to(jsonb_build_array(${DIMENSIONS.map((d) => `f.${d}`).join(', ')})::text, 'UTF8') || coalesce(float8send(case when g.by_rating then f.rating end), ''::bytea))`;
  return `
    with x as (
      select f.project_id, g.by_rating, f.created_ms / ${HOUR_MS} * ${HOUR_MS} as hour_ms, ${keyOf} as dims_key,
             ${DIMENSIONS.map((d) => `f.${d}`).join(', ')}, case when g.by_rating then f.rating end as rating,
             cardinality(f.scorer_tags) > 0 or cardinality(f.scorer_rating_names) > 0 as is_scored, f.scorer_rating_values
      from ${source} f cross join (values (false), (true)) as g(by_rating)
    ),
    counts as (
      select project_id, by_rating, hour_ms, dims_key, ${dims}, rating, count(*) as n, count(*) filter (where is_scored) as scored
      from x group by project_id, by_rating, hour_ms, dims_key, ${dims}, rating
    ),
    sums as (
      select project_id, by_rating, hour_ms, dims_key, array_agg(s order by i) as rating_sums
      from (
        select x.project_id, x.by_rating, x.hour_ms, x.dims_key, u.i, sum(u.v::numeric) as s
        from x cross join lateral unnest(x.scorer_rating_values) with ordinality as u(v, i)
        group by x.project_id, x.by_rating, x.hour_ms, x.dims_key, u.i
      ) per_position
      group by project_id, by_rating, hour_ms, dims_key
    )
${addToRollup(sign)}`;
}

/**
 * The statement's end: the `counts` (one row per rollup key, with its dimensions, rating, n and scored) and `sums`
 * (per key, the rating sums by position) relations of the WITH before it, added (sign 1) or subtracted (sign -1).
 */
export function addToRollup(sign: 1 | -1): string {
  const dims = DIMENSIONS.join(', ');
  return `    insert into tracing.feedback_hourly as h (project_id, by_rating, hour_ms, dims_key, ${dims}, rating, n, scored, rating_sums)
    select c.project_id, c.by_rating, c.hour_ms, c.dims_key, ${DIMENSIONS.map((d) => `c.${d}`).join(', ')}, c.rating,
           ${sign} * c.n, ${sign} * c.scored,
           coalesce(array(select ${sign} * v from unnest(s.rating_sums) with ordinality as u(v, i) order by i), '{}')
    from counts c left join sums s using (project_id, by_rating, hour_ms, dims_key)
    -- One lock order for every writer, so concurrent bulk writes cannot deadlock on rollup rows.
    order by c.project_id, c.hour_ms, c.by_rating, c.dims_key
    on conflict (project_id, by_rating, hour_ms, dims_key) do update set
      n = h.n + excluded.n,
      scored = h.scored + excluded.scored,
      rating_sums = array(select coalesce(a, 0) + coalesce(b, 0) from unnest(h.rating_sums, excluded.rating_sums) with ordinality as u(a, b, i) order by i)`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table tracing.feedback_hourly (
      project_id text not null,
      by_rating boolean not null,
      hour_ms bigint not null,
      dims_key bytea not null,
      feedback_type text not null,
      scorer_id text,
      monitor_id text,
      span_type text,
      span_agent_name text,
      span_agent_version text,
      span_status_code text not null,
      scorer_tags text[] not null,
      scorer_rating_names text[] not null,
      rating double precision,
      n bigint not null,
      scored bigint not null,
      rating_sums numeric[] not null,
      primary key (project_id, by_rating, hour_ms, dims_key)
    )`.execute(db);

  await sql`lock table tracing.feedback in share row exclusive mode`.execute(db);
  await sql
    .raw(
      `create function tracing.feedback_hourly_apply() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          ${applyRows('old_rows', -1)};
          delete from tracing.feedback_hourly h using (select distinct project_id, created_ms / ${HOUR_MS} * ${HOUR_MS} as hour_ms from old_rows) o
            where h.project_id = o.project_id and h.hour_ms = o.hour_ms and h.n = 0;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          ${applyRows('new_rows', 1)};
        end if;
        return null;
      end $$`,
    )
    .execute(db);
  // A trigger with transition tables handles one event, hence three.
  await sql`create trigger feedback_hourly_insert after insert on tracing.feedback referencing new table as new_rows
    for each statement execute function tracing.feedback_hourly_apply()`.execute(db);
  await sql`create trigger feedback_hourly_delete after delete on tracing.feedback referencing old table as old_rows
    for each statement execute function tracing.feedback_hourly_apply()`.execute(db);
  await sql`create trigger feedback_hourly_update after update on tracing.feedback referencing old table as old_rows new table as new_rows
    for each statement execute function tracing.feedback_hourly_apply()`.execute(db);

  // Feedback written before this migration (the migration is one transaction, and the lock taken above keeps
  // writers out until it commits, so no row is missed or counted twice).
  await sql.raw(applyRows('tracing.feedback', 1)).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const event of ['insert', 'delete', 'update']) await sql.raw(`drop trigger if exists feedback_hourly_${event} on tracing.feedback`).execute(db);
  await sql`drop function if exists tracing.feedback_hourly_apply()`.execute(db);
  await sql`drop table if exists tracing.feedback_hourly`.execute(db);
}
