import { sql, type Kysely } from 'kysely';
import * as ratingCdf from './2026-11-22T0100-feedback-rating-cdf.js';

/**
 * The rollups keep their maps also as text, ready to send: an aggregation request reads thousands of rollup rows,
 * and turning their arrays into text per request (json_build_array, array_out, numeric_out for every element) was
 * most of PostgreSQL's time for it — ≈ 37 of 41 ms for a month of feedback_hourly_groups rows, ≈ 85 of 113 ms for a
 * month of rating-bounded rows. A text column is sent as its bytes.
 *
 * Two rendered forms (functions below, one definition used by the rollups and by the raw-row aggregation):
 * - `names`: the tag names and rating names as a JSON array of two string arrays, `[["helpful","toxic"],["_rating_"]]`
 *   — repeated on most rows, so the reader parses each distinct text once;
 * - `maps`: `tag counts;rating counts;rating sums`, each section comma-separated in the names' order, counts as
 *   integers, sums as PostgreSQL numeric text (exact, never in exponent form).
 *
 * feedback_hourly_groups and feedback_hourly keep their arrays (their triggers add deltas to them) and gain the
 * rendered forms as stored generated columns. feedback_rating_cdf, which its trigger recomputes whole, keeps only
 * the rendered form: `cum_maps[k + 1]` is the maps of the first k ratings' prefix sums (the arrays it replaces
 * made each row twice as wide, and a month's scan correspondingly slower). Its trigger function is redefined here
 * with the rebuild of 2026-11-22T0100 ending in the rendered columns.
 */
const HOUR_MS = 3_600_000;
const GROUP_COLUMNS = ['scorer_id', 'span_agent_name', 'span_agent_version', 'span_status_code'] as const;
const DIMS_COLUMNS = ['feedback_type', 'scorer_id', 'monitor_id', 'span_type', 'span_agent_name', 'span_agent_version', 'span_status_code', 'scorer_tags'] as const;
const ATTRIBUTE_COLUMNS = DIMS_COLUMNS;

const groupKeyOf = (alias: string) => `sha256(convert_to(jsonb_build_array(${GROUP_COLUMNS.map((c) => `${alias}.${c}`).join(', ')})::text, 'UTF8'))`;
const dimsKeyOf = (alias: string) => `sha256(convert_to(jsonb_build_array(${DIMS_COLUMNS.map((c) => `${alias}.${c}`).join(', ')})::text, 'UTF8'))`;

/** The (project, hour, group) pairs that the feedback rows of `sources` (transition tables) fall in. */
function affectedOf(sources: string[]): string {
  const columns = `project_id, created_ms / ${HOUR_MS} * ${HOUR_MS} as hour_ms, ${GROUP_COLUMNS.join(', ')}`;
  return `select project_id, hour_ms, ${groupKeyOf('f')} as group_key
    from (${sources.map((source) => `select distinct ${columns} from ${source}`).join(' union ')}) f`;
}

/**
 * SQL that rebuilds the feedback_rating_cdf rows of the (hour, group) pairs in `affected` from feedback_hourly's
 * by-rating grain: 2026-11-22T0100's rebuild (see there), storing its prefix-sum matrices rendered.
 */
function rebuild(affected: string): string {
  const key = 'k';
  return `
    with affected as (${affected}),
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
      names, cum_maps)
    select a.project_id, a.by_dims, a.hour_ms, a.key, a.group_key, ${ATTRIBUTE_COLUMNS.map((c) => `a.${c}`).join(', ')}, c.ratings, c.cum_n, c.cum_scored,
           tracing.render_names(coalesce(tl.names, '{}'), coalesce(rl.names, '{}')),
           tracing.render_prefix_maps(cardinality(c.ratings),
             coalesce(cardinality(tl.names), 0), coalesce(array_fill(0::bigint, array[coalesce(cardinality(tl.names), 0)]) || tc.matrix, '{}'),
             coalesce(cardinality(rl.names), 0), coalesce(array_fill(0::bigint, array[coalesce(cardinality(rl.names), 0)]) || rc.counts, '{}'),
             coalesce(array_fill(0::numeric, array[coalesce(cardinality(rl.names), 0)]) || rc.sums, '{}'))
    from attributes a join cum c using (${key})
      left join tag_list tl using (${key}) left join tag_cum tc using (${key})
      left join rating_list rl using (${key}) left join rating_cum rc using (${key})
    order by a.k`;
}

/**
 * The trigger's work for the rows of `sources`: lock the touched (hour, group) pairs in one order and drop their
 * rows, then rebuild them. The drop is one primary-key lookup per pair (both grains, the hour): the function runs
 * with nested loops off (for the rebuild), under which a join-shaped delete hashed the pairs and scanned the whole
 * table — every write then cost as much as the table was large (2026-11-22T0100 did that).
 */
function recompute(sources: string[]): string {
  const affected = affectedOf(sources);
  return `
    for pair in select distinct project_id, hour_ms, group_key from (${affected}) s order by 1, 2, 3 loop
      perform pg_advisory_xact_lock(hashtext('tracing.feedback_rating_cdf'), hashtext(pair.project_id || ':' || pair.hour_ms || ':' || encode(pair.group_key, 'hex')));
      delete from tracing.feedback_rating_cdf c
        where c.project_id = pair.project_id and c.by_dims in (false, true) and c.hour_ms = pair.hour_ms and c.group_key = pair.group_key;
    end loop;
    ${rebuild(affected)};`;
}

export async function up(db: Kysely<any>): Promise<void> {
  // Immutable in fact: the text forms of text, bigint and numeric do not depend on settings (PostgreSQL marks
  // array_to_string and json_build_array stable only because some element types' forms do), which a generated
  // column requires.
  await sql`
    create function tracing.render_names(tag_names text[], rating_names text[]) returns text
      language sql immutable parallel safe
      as $$ select json_build_array(tag_names, rating_names)::text $$`.execute(db);
  await sql`
    create function tracing.render_maps(tag_counts bigint[], rating_counts bigint[], rating_sums numeric[]) returns text
      language sql immutable parallel safe
      as $$ select array_to_string(tag_counts, ',') || ';' || array_to_string(rating_counts, ',') || ';' || array_to_string(rating_sums, ',') $$`.execute(db);
  // Prefix-sum matrices ((points + 1) rows of tags / rating names, flattened row by row) as one maps text per row.
  await sql`
    create function tracing.render_prefix_maps(points int, tags int, tag_counts bigint[], ratings int, rating_counts bigint[], rating_sums numeric[])
      returns text[] language sql immutable parallel safe
      as $$ select array(select tracing.render_maps(coalesce(tag_counts[k * tags + 1 : k * tags + tags], '{}'),
                                                    coalesce(rating_counts[k * ratings + 1 : k * ratings + ratings], '{}'),
                                                    coalesce(rating_sums[k * ratings + 1 : k * ratings + ratings], '{}'))
                         from generate_series(0, points) as k order by k) $$`.execute(db);

  await sql`lock table tracing.feedback in share row exclusive mode`.execute(db);

  await sql`
    alter table tracing.feedback_hourly_groups
      add column names text generated always as (tracing.render_names(tag_names, rating_names)) stored,
      add column maps text generated always as (tracing.render_maps(tag_counts, rating_counts, rating_sums)) stored`.execute(db);
  // feedback_hourly's all-ratings grain: each row stands for n feedback rows with the same tags and rating names,
  // so every name counts n. Its by-rating grain is read only by the cdf rebuild.
  await sql`
    alter table tracing.feedback_hourly
      add column names text generated always as (case when not by_rating then tracing.render_names(scorer_tags, scorer_rating_names) end) stored,
      add column maps text generated always as (case when not by_rating then tracing.render_maps(
        array_fill(n, array[cardinality(scorer_tags)]), array_fill(n, array[cardinality(scorer_rating_names)]), rating_sums) end) stored`.execute(db);

  await sql`truncate tracing.feedback_rating_cdf`.execute(db);
  await sql`
    alter table tracing.feedback_rating_cdf
      drop column tag_names, drop column cum_tag_counts, drop column rating_names, drop column cum_rating_counts, drop column cum_rating_sums,
      add column names text not null,
      add column cum_maps text[] not null`.execute(db);
  await sql
    .raw(
      `create or replace function tracing.feedback_rating_cdf_apply() returns trigger language plpgsql as $$
      declare
        pair record;
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
      set enable_nestloop = off`,
    )
    .execute(db);
  await sql`set local enable_nestloop = off`.execute(db);
  await sql.raw(rebuild(`select distinct project_id, hour_ms, ${groupKeyOf('h')} as group_key from tracing.feedback_hourly h where h.by_rating`)).execute(db);
  await sql`reset enable_nestloop`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table tracing.feedback_hourly_groups drop column if exists names, drop column if exists maps`.execute(db);
  await sql`alter table tracing.feedback_hourly drop column if exists names, drop column if exists maps`.execute(db);
  // feedback_rating_cdf as 2026-11-22T0100 made it, rebuilt from feedback_hourly.
  await ratingCdf.down(db);
  await ratingCdf.up(db);
  for (const fn of ['render_prefix_maps(int, int, bigint[], int, bigint[], numeric[])', 'render_maps(bigint[], bigint[], numeric[])', 'render_names(text[], text[])']) {
    await sql.raw(`drop function if exists tracing.${fn}`).execute(db);
  }
}
