import { sql, type Kysely } from 'kysely';

/**
 * A coarser hourly rollup of feedback for /feedback/aggregate: one row per (project, hour, the four columns a
 * request can group on — scorer_id, span_agent_name, span_agent_version, span_status_code), with the row count,
 * the scored count, and the tag counts and rating counts/sums as aligned arrays (tag_names[i] ↔ tag_counts[i],
 * rating_names[i] ↔ rating_counts[i], rating_sums[i]). It answers requests whose filters are only on those
 * columns (scorer_ids, span_agent_names), which with feedback_hourly had to read one row per distinct
 * combination of every filterable column (tag sets, rating names, types, monitors, span types).
 *
 * Kept like feedback_hourly: statement-level triggers on tracing.feedback, in the writing transaction, adding or
 * subtracting each statement's rows per hour and group. Map entries whose count drops to zero are removed and
 * rows whose count drops to zero are deleted, so the rollup never holds what the feedback rows would not answer.
 * Sums are numeric (each float8 value as PostgreSQL converts it), so they add exactly in any order.
 */
const GROUP_COLUMNS = ['scorer_id', 'span_agent_name', 'span_agent_version', 'span_status_code'] as const;
const HOUR_MS = 3_600_000;

/** SQL that adds (sign 1) or subtracts (sign -1) the rows of `source` (a relation with feedback's columns). */
function applyRows(source: string, sign: 1 | -1): string {
  const columns = GROUP_COLUMNS.join(', ');
  const keyOf = `sha256(convert_to(jsonb_build_array(${GROUP_COLUMNS.map((c) => `f.${c}`).join(', ')})::text, 'UTF8'))`;
  const rowKey = 'project_id, hour_ms, group_key';
  return `
    with x as (
      select f.project_id, f.created_ms / ${HOUR_MS} * ${HOUR_MS} as hour_ms, ${keyOf} as group_key,
             ${GROUP_COLUMNS.map((c) => `f.${c}`).join(', ')}, f.scorer_tags, f.scorer_rating_names, f.scorer_rating_values,
             cardinality(f.scorer_tags) > 0 or cardinality(f.scorer_rating_names) > 0 as is_scored
      from ${source} f
    ),
    counts as (
      select ${rowKey}, ${columns}, ${sign} * count(*) as n, ${sign} * count(*) filter (where is_scored) as scored
      from x group by ${rowKey}, ${columns}
    ),
    tags as (
      select ${rowKey}, array_agg(tag order by tag) as tag_names, array_agg(n order by tag) as tag_counts
      from (select ${rowKey}, u.tag, ${sign} * count(*) as n from x cross join lateral unnest(x.scorer_tags) as u(tag) group by ${rowKey}, u.tag) per_tag
      group by ${rowKey}
    ),
    ratings as (
      select ${rowKey}, array_agg(name order by name) as rating_names, array_agg(n order by name) as rating_counts,
             array_agg(total order by name) as rating_sums
      from (select ${rowKey}, u.name, ${sign} * count(*) as n, ${sign} * sum(u.value::numeric) as total
            from x cross join lateral unnest(x.scorer_rating_names, x.scorer_rating_values) as u(name, value) group by ${rowKey}, u.name) per_rating
      group by ${rowKey}
    )
    insert into tracing.feedback_hourly_groups as h (${rowKey}, ${columns}, n, scored, tag_names, tag_counts, rating_names, rating_counts, rating_sums)
    select c.project_id, c.hour_ms, c.group_key, ${GROUP_COLUMNS.map((col) => `c.${col}`).join(', ')}, c.n, c.scored,
           coalesce(t.tag_names, '{}'), coalesce(t.tag_counts, '{}'),
           coalesce(r.rating_names, '{}'), coalesce(r.rating_counts, '{}'), coalesce(r.rating_sums, '{}')
    from counts c left join tags t using (${rowKey}) left join ratings r using (${rowKey})
    -- One lock order for every writer, so concurrent bulk writes cannot deadlock on rollup rows.
    order by c.project_id, c.hour_ms, c.group_key
    on conflict (${rowKey}) do update set
      n = h.n + excluded.n,
      scored = h.scored + excluded.scored,
      -- The maps are merged per name; an entry whose count becomes zero is dropped.
      (tag_names, tag_counts) = (
        select coalesce(array_agg(k order by k), '{}'), coalesce(array_agg(v order by k), '{}')
        from (select k, sum(v)::bigint as v
              from (select * from unnest(h.tag_names, h.tag_counts) union all select * from unnest(excluded.tag_names, excluded.tag_counts)) as u(k, v)
              group by k) merged
        where v <> 0),
      (rating_names, rating_counts, rating_sums) = (
        select coalesce(array_agg(k order by k), '{}'), coalesce(array_agg(v order by k), '{}'), coalesce(array_agg(s order by k), '{}')
        from (select k, sum(v)::bigint as v, sum(s) as s
              from (select * from unnest(h.rating_names, h.rating_counts, h.rating_sums)
                    union all select * from unnest(excluded.rating_names, excluded.rating_counts, excluded.rating_sums)) as u(k, v, s)
              group by k) merged
        where v <> 0)`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table tracing.feedback_hourly_groups (
      project_id text not null,
      hour_ms bigint not null,
      -- SHA-256 of the group columns (nullable, so not usable as key columns themselves).
      group_key bytea not null,
      scorer_id text,
      span_agent_name text,
      span_agent_version text,
      span_status_code text not null,
      n bigint not null,
      scored bigint not null,
      tag_names text[] not null,
      tag_counts bigint[] not null,
      rating_names text[] not null,
      rating_counts bigint[] not null,
      rating_sums numeric[] not null,
      primary key (project_id, hour_ms, group_key)
    )`.execute(db);

  await sql`lock table tracing.feedback in share row exclusive mode`.execute(db);
  await sql
    .raw(
      `create function tracing.feedback_hourly_groups_apply() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          ${applyRows('old_rows', -1)};
          delete from tracing.feedback_hourly_groups h using (select distinct project_id, created_ms / ${HOUR_MS} * ${HOUR_MS} as hour_ms from old_rows) o
            where h.project_id = o.project_id and h.hour_ms = o.hour_ms and h.n = 0;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          ${applyRows('new_rows', 1)};
        end if;
        return null;
      end $$`,
    )
    .execute(db);
  await sql`create trigger feedback_hourly_groups_insert after insert on tracing.feedback referencing new table as new_rows
    for each statement execute function tracing.feedback_hourly_groups_apply()`.execute(db);
  await sql`create trigger feedback_hourly_groups_delete after delete on tracing.feedback referencing old table as old_rows
    for each statement execute function tracing.feedback_hourly_groups_apply()`.execute(db);
  await sql`create trigger feedback_hourly_groups_update after update on tracing.feedback referencing old table as old_rows new table as new_rows
    for each statement execute function tracing.feedback_hourly_groups_apply()`.execute(db);

  // Feedback written before this migration (writers are locked out until the migration commits).
  await sql.raw(applyRows('tracing.feedback', 1)).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const event of ['insert', 'delete', 'update']) await sql.raw(`drop trigger if exists feedback_hourly_groups_${event} on tracing.feedback`).execute(db);
  await sql`drop function if exists tracing.feedback_hourly_groups_apply()`.execute(db);
  await sql`drop table if exists tracing.feedback_hourly_groups`.execute(db);
}
