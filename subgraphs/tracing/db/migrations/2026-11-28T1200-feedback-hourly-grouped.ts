import { sql, type Kysely } from 'kysely';
// The rollup's dimensions and hour are the first version's: the same rows, keyed the same way.
import { addToRollup, applyRows as applyRowsPerRow, DIMENSIONS, HOUR_MS } from './2026-11-21T2300-feedback-hourly-rollup.js';

/**
 * feedback_hourly's trigger, grouping before it hashes. The first version (2026-11-21T2300) computed each written
 * row's key — a SHA-256 of its dimensions as JSON text and of its rating — twice (one per grain) before grouping:
 * 19 µs of PostgreSQL per score feedback row when a monitor records a batch of scores (bench/monitors
 * `--postgres-statements`, against 83 µs for the whole recording statement), the largest of the three rollup
 * triggers. Now the rows are grouped first by their hour, dimensions
 * and rating's bytes (two ratings are apart exactly when their keys were: -0 and 0, or values that print alike),
 * with their counts and per-position rating sums, and each group's key is computed once per grain from that.
 * Keys, rows and sums are the same as before, so the table is not rebuilt.
 */

/** The dimensions feedback rows may leave null. */
const NULLABLE = new Set<string>(['scorer_id', 'monitor_id', 'span_type', 'span_agent_name', 'span_agent_version']);

/** SQL that adds (sign 1) or subtracts (sign -1) the rows of `source` (a relation with the feedback columns) to or from the rollup. */
function applyRows(source: string, sign: 1 | -1): string {
  const dims = DIMENSIONS.join(', ');
  const dimsOf = (alias: string) => DIMENSIONS.map((d) => `${alias}.${d}`).join(', ');
  // The rating goes in as its 8 bytes: its text form depends on the session's extra_float_digits.
  const keyOf = `sha256(convert_to(jsonb_build_array(${dimsOf('c')})::text, 'UTF8') || coalesce(case when g.by_rating then c.rating_bytes end, ''::bytea))`;
  return `
    with per_value as (
      select f.project_id, f.created_ms / ${HOUR_MS} * ${HOUR_MS} as hour_ms, ${dimsOf('f')}, float8send(f.rating) as rating_bytes,
             min(f.rating) as rating, count(*) as n,
             count(*) filter (where cardinality(f.scorer_tags) > 0 or cardinality(f.scorer_rating_names) > 0) as scored
      from ${source} f
      group by f.project_id, hour_ms, ${dimsOf('f')}, rating_bytes
    ),
    value_sums as (
      select f.project_id, f.created_ms / ${HOUR_MS} * ${HOUR_MS} as hour_ms, ${dimsOf('f')}, float8send(f.rating) as rating_bytes,
             u.i, sum(u.v::numeric) as s
      from ${source} f cross join lateral unnest(f.scorer_rating_values) with ordinality as u(v, i)
      group by f.project_id, hour_ms, ${dimsOf('f')}, rating_bytes, u.i
    ),
    keyed as (
      select c.project_id, g.by_rating, c.hour_ms, ${keyOf} as dims_key, ${dimsOf('c')},
             case when g.by_rating then c.rating end as rating, c.rating_bytes, c.n, c.scored
      from per_value c cross join (values (false), (true)) as g(by_rating)
    ),
    counts as (
      select project_id, by_rating, hour_ms, dims_key, ${dims}, min(rating) as rating, sum(n) as n, sum(scored) as scored
      from keyed group by project_id, by_rating, hour_ms, dims_key, ${dims}
    ),
    sums as (
      select project_id, by_rating, hour_ms, dims_key, array_agg(s order by i) as rating_sums
      from (
        select k.project_id, k.by_rating, k.hour_ms, k.dims_key, v.i, sum(v.s) as s
        from keyed k join value_sums v
          -- The non-null columns make the join hashable; the nullable ones are compared as values, null included.
          on v.project_id = k.project_id and v.hour_ms = k.hour_ms and coalesce(v.rating_bytes, ''::bytea) = coalesce(k.rating_bytes, ''::bytea)
          and ${DIMENSIONS.map((d) => (NULLABLE.has(d) ? `v.${d} is not distinct from k.${d}` : `v.${d} = k.${d}`)).join(' and ')}
        group by k.project_id, k.by_rating, k.hour_ms, k.dims_key, v.i
      ) per_position
      group by project_id, by_rating, hour_ms, dims_key
    )
${addToRollup(sign)}`;
}

/** The trigger function with `apply` writing the rows (its delete of emptied rows as in the first version). */
function triggerFunction(apply: (source: string, sign: 1 | -1) => string): string {
  return `create or replace function tracing.feedback_hourly_apply() returns trigger language plpgsql as $$
    begin
      if tg_op in ('DELETE', 'UPDATE') then
        ${apply('old_rows', -1)};
        delete from tracing.feedback_hourly h using (select distinct project_id, created_ms / ${HOUR_MS} * ${HOUR_MS} as hour_ms from old_rows) o
          where h.project_id = o.project_id and h.hour_ms = o.hour_ms and h.n = 0;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        ${apply('new_rows', 1)};
      end if;
      return null;
    end $$`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(triggerFunction(applyRows)).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(triggerFunction(applyRowsPerRow)).execute(db);
}
