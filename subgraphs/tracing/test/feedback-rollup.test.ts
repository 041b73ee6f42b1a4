import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import type { TracingDatabase } from '../db/database.js';
import { FeedbackService } from '../feedback/feedback.service.js';
import { rollupSourceOf, wholeHoursOf } from '../feedback/feedback.store.js';
import { traces } from './helpers.js';

/**
 * The hourly rollup must answer exactly what the feedback rows answer: randomized feedback (written in bulk, one
 * by one through REST, then partly updated and deleted) and randomized requests — windows with partial edge hours,
 * bucket sizes that are and are not whole hours, every filter and group_by — compared with the raw-row path, for
 * every rollup (feedback_hourly at both grains, feedback_hourly_groups).
 */
const P = 'trellis/default';
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
const SPAN = 30 * HOUR;

let platform: TestPlatform;
let db: Kysely<TracingDatabase>;
let feedback: FeedbackService;

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(20261121);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
const some = <T>(values: readonly T[], max = 3): T[] => Array.from({ length: Math.floor(random() * (max + 1)) }, () => pick(values));

const SCORERS = [null, 'Tox', 'Toxic2', 'Help', 'help'];
const MONITORS = [null, 'Mon', 'Monitor9'];
const TYPES = ['wandb.runnable.Tox', 'wandb.runnable.Help', 'wandb.note', 'other.kind'];
const TAGS = ['toxic', 'helpful', 'short', 'tox'];
const AGENTS = [null, 'agent1', 'agent2'];
const RATINGS = [0, 0.1, 0.2, 0.25, 0.5, 0.8, 1];

function randomRow(index: number) {
  const ratings: Record<string, number> = {};
  if (random() < 0.7) ratings._rating_ = random() < 0.6 ? pick(RATINGS) : random();
  if (random() < 0.5) ratings.relevance = random() * 10;
  if (random() < 0.2) ratings.tone = pick(RATINGS);
  const names = Object.keys(ratings);
  return {
    project_id: P,
    id: crypto.randomUUID(),
    weave_ref: `weave:///${P}/${pick(['call', 'agent_turn', 'agent_conversation'])}/c${index}`,
    feedback_type: pick(TYPES),
    payload: {},
    created_ms: T0 + Math.floor(random() * SPAN),
    scorer_id: pick(SCORERS),
    monitor_id: pick(MONITORS),
    span_type: pick([null, 'agent_turn', 'agent_conversation']),
    scorer_tags: some(TAGS),
    scorer_rating_names: names,
    scorer_rating_values: names.map((name) => ratings[name]!),
    rating: ratings._rating_ ?? null,
    span_agent_name: pick(AGENTS),
    span_agent_version: pick([null, 'v1', '']),
    span_status_code: pick(['UNSET', 'OK', 'ERROR']),
  };
}

/** Filters only on group columns (or none): what feedback_hourly_groups answers. */
function randomGroupsRequest() {
  const request = randomRequest();
  for (const filter of ['feedback_types', 'monitor_ids', 'span_types', 'tags', 'rating_min', 'rating_max']) delete request[filter];
  if (random() < 0.3) request.scorer_ids = some(['Tox', 'Tox*', 'help', 'Help*', 'Nobody'], 2);
  if (random() < 0.3) request.span_agent_names = some(['agent1', 'agent2'], 1);
  if (random() < 0.3) request.group_by = ['scorer_id', 'span_agent_name', 'span_agent_version', 'span_status_code'];
  return request;
}

function randomRequest(): Record<string, unknown> {
  const aligned = random() < 0.3;
  const after = aligned ? T0 + Math.floor(random() * 10) * HOUR : T0 - HOUR + Math.floor(random() * 12 * HOUR);
  const before = aligned && random() < 0.5 ? after + Math.ceil(random() * 20) * HOUR : after + 1 + Math.floor(random() * 25 * HOUR);
  const request: Record<string, unknown> = { after_ms: after, before_ms: before };
  const bucket = pick([null, null, 3600, 3600, 7200, 86_400, 1800, 60, 5400]);
  if (bucket && (before - after) / (bucket * 1000) <= 10_000) request.time_bucket_seconds = bucket;
  if (random() < 0.5) request.group_by = some(['scorer_id', 'span_agent_name', 'span_agent_version', 'span_status_code'] as const, 2);
  if (random() < 0.25) request.feedback_types = some(['wandb.runnable', 'wandb.runnable.Tox*', 'wandb.note', 'other'], 2);
  if (random() < 0.25) request.scorer_ids = some(['Tox', 'Tox*', 'help', 'Help*', 'Nobody'], 2);
  if (random() < 0.15) request.monitor_ids = some(['Mon', 'Mon*'], 1);
  if (random() < 0.2) request.span_types = some(['agent_turn', 'agent_conversation'] as const, 1);
  if (random() < 0.3) request.tags = some(TAGS, 2);
  if (random() < 0.15) request.span_agent_names = some(['agent1', 'agent2'], 1);
  if (random() < 0.3) request.rating_min = pick([0, 0.1, 0.2, 0.5]);
  if (random() < 0.3) request.rating_max = pick([0.25, 0.5, 0.8, 1]);
  return request;
}

async function insertRows(rows: ReturnType<typeof randomRow>[]) {
  // One statement: the rollup triggers see the whole batch at once (the bulk path).
  await sql`
    insert into tracing.feedback (project_id, id, weave_ref, feedback_type, payload, created_ms, created_at, scorer_id, monitor_id,
      span_type, scorer_tags, scorer_rating_names, scorer_rating_values, rating, span_agent_name, span_agent_version, span_status_code)
    select project_id, id, weave_ref, feedback_type, payload, created_ms, to_timestamp(created_ms / 1000.0), scorer_id, monitor_id,
      span_type, scorer_tags, scorer_rating_names, scorer_rating_values, rating, span_agent_name, span_agent_version, span_status_code
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(project_id text, id uuid, weave_ref text, feedback_type text, payload jsonb,
      created_ms bigint, scorer_id text, monitor_id text, span_type text, scorer_tags text[], scorer_rating_names text[],
      scorer_rating_values float8[], rating float8, span_agent_name text, span_agent_version text, span_status_code text)`.execute(db);
}

async function rollupSnapshot() {
  return [
    ...(await sql<Record<string, unknown>>`select * from tracing.feedback_hourly order by project_id, by_rating, hour_ms, dims_key`.execute(db)).rows,
    ...(await sql<Record<string, unknown>>`select * from tracing.feedback_hourly_groups order by project_id, hour_ms, group_key`.execute(db)).rows,
    ...(await sql<Record<string, unknown>>`select * from tracing.feedback_rating_cdf order by project_id, by_dims, hour_ms, key`.execute(db)).rows,
  ];
}

beforeAll(async () => {
  platform = await startTestPlatform();
  db = platform.db.forSchema<TracingDatabase>('tracing');
  feedback = new FeedbackService(db, platform.db.pool);
  await insertRows(Array.from({ length: 1500 }, (_, i) => randomRow(i)));
  await insertRows(Array.from({ length: 300 }, (_, i) => randomRow(2000 + i)));
  // Through the service path too (one row per statement), then moved into the span.
  for (let i = 0; i < 20; i++) {
    const row = randomRow(3000 + i);
    const ratings = Object.fromEntries(row.scorer_rating_names.map((name, k) => [name, row.scorer_rating_values[k]!]));
    const res = await traces(platform, '/feedback/create', {
      project_id: P, weave_ref: row.weave_ref, feedback_type: row.feedback_type, payload: {}, scorer_tags: row.scorer_tags,
      scorer_ratings: ratings, span_agent_name: row.span_agent_name, runnable_ref: row.scorer_id ? `weave:///${P}/object/${row.scorer_id}:d` : null,
    });
    expect(res.status).toBe(200);
    await sql`update tracing.feedback set created_ms = ${row.created_ms}, created_at = to_timestamp(${row.created_ms / 1000}) where id = ${res.body.id}::uuid`.execute(db);
  }
  // Updates and deletes keep the rollup exact as well.
  await sql`update tracing.feedback set scorer_tags = array['toxic', 'toxic'], rating = null where created_ms % 7 = 0`.execute(db);
  await sql`delete from tracing.feedback where created_ms % 11 = 0`.execute(db);
}, 60_000);

afterAll(async () => {
  await platform?.close();
});

describe('feedback hourly rollup', () => {
  it('holds exactly the feedback rows, in every grain, with no empty rows or zero map entries', async () => {
    const counts = await sql<{ rows: number; coarse: number; fine: number; groups: number; tags: number; ratings: number }>`
      select (select count(*)::int from tracing.feedback) as rows,
             (select sum(n)::int from tracing.feedback_hourly where not by_rating) as coarse,
             (select sum(n)::int from tracing.feedback_hourly where by_rating) as fine,
             (select sum(n)::int from tracing.feedback_hourly_groups) as groups,
             (select coalesce(sum(cardinality(scorer_tags)), 0)::int from tracing.feedback) as tags,
             (select coalesce(sum(cardinality(scorer_rating_names)), 0)::int from tracing.feedback) as ratings`.execute(db);
    const expected = counts.rows[0]!;
    expect(expected.rows).toBeGreaterThan(1500);
    expect(expected).toMatchObject({ coarse: expected.rows, fine: expected.rows, groups: expected.rows });
    const groupsMaps = await sql<{ tags: number; ratings: number }>`
      select (select sum(c)::int from tracing.feedback_hourly_groups, unnest(tag_counts) c) as tags,
             (select sum(c)::int from tracing.feedback_hourly_groups, unnest(rating_counts) c) as ratings`.execute(db);
    expect(groupsMaps.rows[0]).toEqual({ tags: expected.tags, ratings: expected.ratings });
    const empty = await sql<{ n: number }>`
      select (select count(*) from tracing.feedback_hourly where n <= 0)
           + (select count(*) from tracing.feedback_hourly_groups where n <= 0 or 0 = any(tag_counts) or 0 = any(rating_counts)
                or cardinality(tag_names) <> cardinality(tag_counts) or cardinality(rating_names) <> cardinality(rating_counts)
                or cardinality(rating_names) <> cardinality(rating_sums))::int as n`.execute(db);
    expect(empty.rows[0]!.n).toBe(0);
    // The prefix sums end at the rows that carry a rating, in both grains, and every array and rendered prefix has its shape.
    const cdf = await sql<{ rated: number; groups: number; dims: number; malformed: number }>`
      select (select count(*)::int from tracing.feedback where rating is not null) as rated,
             (select sum(cum_n[cardinality(cum_n)])::int from tracing.feedback_rating_cdf where not by_dims) as groups,
             (select sum(cum_n[cardinality(cum_n)])::int from tracing.feedback_rating_cdf where by_dims) as dims,
             (select count(*)::int from tracing.feedback_rating_cdf
              where cardinality(ratings) = 0 or cardinality(cum_n) <> cardinality(ratings) + 1 or cardinality(cum_scored) <> cardinality(cum_n)
                 or cardinality(cum_maps) <> cardinality(cum_n)
                 -- every rendered prefix has one value per tag and two per rating name (count and sum)
                 or exists (select from unnest(cum_maps) as m
                            where cardinality(string_to_array(split_part(m, ';', 1), ',')) <> json_array_length(names::json -> 0)
                               or cardinality(string_to_array(split_part(m, ';', 2), ',')) <> json_array_length(names::json -> 1)
                               or cardinality(string_to_array(split_part(m, ';', 3), ',')) <> json_array_length(names::json -> 1))) as malformed`.execute(db);
    expect(cdf.rows[0]).toEqual({ rated: cdf.rows[0]!.rated, groups: cdf.rows[0]!.rated, dims: cdf.rows[0]!.rated, malformed: 0 });
    expect(cdf.rows[0]!.rated).toBeGreaterThan(500);
  });

  it('feedback_hourly equals its recomputation from the feedback rows at both grains, per-position rating sums included', async () => {
    // Many rows of one hour and one set of dimensions with different ratings: the coarse grain adds up what the fine
    // grain keeps apart (the random rows above rarely share an hour and every dimension). Another project, so the
    // requests of the other tests see the same rows as before.
    const dense = Array.from({ length: 300 }, (_, i) => {
      const rating = pick(RATINGS);
      return {
        ...randomRow(5000 + i), project_id: 'trellis/dense', created_ms: T0 + 5 * HOUR + i * 1000, feedback_type: 'wandb.runnable.Tox', scorer_id: 'Tox',
        monitor_id: null, span_type: null, scorer_tags: [], span_agent_name: null, span_agent_version: null, span_status_code: 'UNSET',
        scorer_rating_names: ['_rating_', 'relevance'], scorer_rating_values: [rating, Math.round(random() * 1000) / 100], rating,
      };
    });
    await insertRows(dense);
    await sql`delete from tracing.feedback where project_id = 'trellis/dense' and created_ms % 3 = 0`.execute(db);
    const dims = 'feedback_type, scorer_id, monitor_id, span_type, span_agent_name, span_agent_version, span_status_code, scorer_tags, scorer_rating_names';
    const { rows } = await sql<{ missing: number; extra: number; coarse_groups: number }>`
      with raw as (
        select f.*, g.by_rating, f.created_ms / ${HOUR} * ${HOUR} as hour_ms, jsonb_build_array(${sql.raw(dims)})::text as dims_text,
               case when g.by_rating then float8send(f.rating) end as rating_bytes
        from tracing.feedback f cross join (values (false), (true)) as g(by_rating)
      ),
      counts as (
        select project_id, by_rating, hour_ms, dims_text, rating_bytes, count(*) as n from raw group by 1, 2, 3, 4, 5
      ),
      sums as (
        select project_id, by_rating, hour_ms, dims_text, rating_bytes, array_agg(s order by i) as rating_sums
        from (select r.project_id, r.by_rating, r.hour_ms, r.dims_text, r.rating_bytes, u.i, sum(u.v::numeric) as s
              from raw r cross join lateral unnest(r.scorer_rating_values) with ordinality as u(v, i) group by 1, 2, 3, 4, 5, 6) per_position
        group by 1, 2, 3, 4, 5
      ),
      expected as (
        select c.project_id, c.by_rating, c.hour_ms, c.dims_text, coalesce(c.rating_bytes, ''::bytea) as rating_bytes, c.n, coalesce(s.rating_sums, '{}') as rating_sums
        from counts c left join sums s on s.project_id = c.project_id and s.by_rating = c.by_rating and s.hour_ms = c.hour_ms and s.dims_text = c.dims_text
          and s.rating_bytes is not distinct from c.rating_bytes
      ),
      stored as (
        select project_id, by_rating, hour_ms, jsonb_build_array(${sql.raw(dims)})::text as dims_text, coalesce(float8send(rating), ''::bytea) as rating_bytes,
               n, rating_sums
        from tracing.feedback_hourly
      )
      select (select count(*)::int from (select * from expected except select * from stored) e) as missing,
             (select count(*)::int from (select * from stored except select * from expected) e) as extra,
             (select count(*)::int from tracing.feedback_hourly where project_id = 'trellis/dense' and not by_rating) as coarse_groups`.execute(db);
    expect(rows[0]).toEqual({ missing: 0, extra: 0, coarse_groups: 1 });
  });

  it('answers 200 randomized requests exactly like the raw rows', async () => {
    let usedRollup = 0;
    for (let i = 0; i < 200; i++) {
      const request = randomRequest();
      const bucketMs = request.time_bucket_seconds ? Number(request.time_bucket_seconds) * 1000 : null;
      if (wholeHoursOf(Number(request.after_ms), Number(request.before_ms), bucketMs)) usedRollup++;
      const fromRollup = await feedback.aggregate(P, request);
      const fromRows = await feedback.aggregate(P, request, { rollup: false });
      expect(fromRollup, JSON.stringify(request)).toEqual(fromRows);
    }
    expect(usedRollup).toBeGreaterThan(100);
  });

  it('answers 150 randomized requests filtered on group columns only (feedback_hourly_groups) like the raw rows', async () => {
    let usedGroups = 0;
    for (let i = 0; i < 150; i++) {
      const request = randomGroupsRequest();
      const bucketMs = request.time_bucket_seconds ? Number(request.time_bucket_seconds) * 1000 : null;
      expect(rollupSourceOf(request as never)).toBe('groups');
      if (wholeHoursOf(Number(request.after_ms), Number(request.before_ms), bucketMs)) usedGroups++;
      const fromRollup = await feedback.aggregate(P, request);
      const fromRows = await feedback.aggregate(P, request, { rollup: false });
      expect(fromRollup, JSON.stringify(request)).toEqual(fromRows);
    }
    expect(usedGroups).toBeGreaterThan(75);
  });

  it('answers 200 randomized rating-bounded requests (prefix sums) like the raw rows: bounds equal to, between and beyond stored ratings', async () => {
    const stored = (await sql<{ rating: number }>`select distinct rating from tracing.feedback where rating is not null`.execute(db)).rows.map((row) => row.rating);
    const bound = () =>
      pick([
        () => pick(stored), // equal to a stored rating
        () => pick(RATINGS),
        () => (pick(stored) + pick(stored)) / 2, // between stored ratings (or equal, when the two are the same)
        () => 0,
        () => 1,
        () => random(),
      ])();
    const sources = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const request = random() < 0.5 ? randomGroupsRequest() : randomRequest();
      delete request.rating_min;
      delete request.rating_max;
      if (random() < 0.8) request.rating_min = bound();
      if (random() < 0.8 || request.rating_min === undefined) request.rating_max = bound();
      sources.add(rollupSourceOf(request as never));
      const fromRollup = await feedback.aggregate(P, request);
      const fromRows = await feedback.aggregate(P, request, { rollup: false });
      expect(fromRollup, JSON.stringify(request)).toEqual(fromRows);
    }
    expect([...sources].sort()).toEqual(['cdf-dims', 'cdf-groups']);
  });

  it('keeps the prefix sums exact when two transactions write to the same hour and group at once', async () => {
    const at = T0 + 50 * HOUR; // beyond every randomized window
    const row = (rating: number) => ({ ...randomRow(9000), created_ms: at + 10, scorer_id: 'Tox', span_agent_name: 'agent1', span_agent_version: 'v1',
      span_status_code: 'OK', scorer_rating_names: ['_rating_'], scorer_rating_values: [rating], rating });
    const insertIn = (trx: Kysely<TracingDatabase>, rows: ReturnType<typeof randomRow>[]) => sql`
      insert into tracing.feedback (project_id, id, weave_ref, feedback_type, payload, created_ms, created_at, scorer_id, span_agent_name,
        span_agent_version, span_status_code, scorer_tags, scorer_rating_names, scorer_rating_values, rating)
      select project_id, id, weave_ref, feedback_type, payload, created_ms, to_timestamp(created_ms / 1000.0), scorer_id, span_agent_name,
        span_agent_version, span_status_code, scorer_tags, scorer_rating_names, scorer_rating_values, rating
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(project_id text, id uuid, weave_ref text, feedback_type text, payload jsonb,
        created_ms bigint, scorer_id text, span_agent_name text, span_agent_version text, span_status_code text, scorer_tags text[],
        scorer_rating_names text[], scorer_rating_values float8[], rating float8)`.execute(trx);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstWritten!: () => void;
    const written = new Promise<void>((resolve) => (firstWritten = resolve));
    const first = db.transaction().execute(async (trx) => {
      await insertIn(trx, [row(0.3), row(0.6)]);
      firstWritten();
      await held; // still open while the second writer recomputes the same (hour, group)
    });
    await written;
    const second = db.transaction().execute((trx) => insertIn(trx, [row(0.45), row(0.9)]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await Promise.all([first, second]);
    const request = { after_ms: at, before_ms: at + HOUR, rating_min: 0.3, rating_max: 0.6, group_by: ['scorer_id'] };
    expect(rollupSourceOf(request as never)).toBe('cdf-groups');
    const fromRollup = await feedback.aggregate(P, request);
    expect(fromRollup.buckets[0]!.total_count).toBe(3);
    expect(fromRollup).toEqual(await feedback.aggregate(P, request, { rollup: false }));
  });

  it('refuses feedback writes outside READ COMMITTED, which the prefix-sum recompute relies on', async () => {
    await expect(
      db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
        await sql`insert into tracing.feedback (project_id, id, weave_ref, feedback_type, payload, created_ms)
          values (${P}, gen_random_uuid(), 'weave:///x/call/y', 'wandb.note', '{}', ${T0 + 5})`.execute(trx);
      }),
    ).rejects.toThrow(/READ COMMITTED/);
  });

  it('keeps ratings apart that print alike (a writer with extra_float_digits = 0)', async () => {
    const at = T0 + 40 * HOUR; // beyond every randomized window
    await db.transaction().execute(async (trx) => {
      await sql`set local extra_float_digits = 0`.execute(trx);
      await sql`insert into tracing.feedback (project_id, id, weave_ref, feedback_type, payload, created_ms, scorer_rating_names, scorer_rating_values, rating)
        select ${P}, gen_random_uuid(), 'weave:///x/call/y', 'wandb.note', '{}', ${at + 5}, array['_rating_'], array[r], r
        from unnest(array[0.1::float8, 0.1::float8 + 1e-17::float8 * 2]) as r`.execute(trx);
    });
    const request = { after_ms: at, before_ms: at + 2 * HOUR, rating_max: 0.1 };
    const fromRollup = await feedback.aggregate(P, request);
    expect(fromRollup.buckets[0]!.total_count).toBe(1);
    expect(fromRollup).toEqual(await feedback.aggregate(P, request, { rollup: false }));
  });

  it('a feedback write reads only its own hour and group of every rollup, never a whole rollup table', async () => {
    // pg_stat_xact_user_tables counts this transaction's reads, the triggers' included. (A sequential scan of
    // feedback_rating_cdf on every write once made each write cost as much as the table was large.) With statistics,
    // as autovacuum keeps them: a table never analyzed looks like ten pages to the planner, which then scans it.
    for (const table of ['feedback_hourly', 'feedback_hourly_groups', 'feedback_rating_cdf']) await sql`analyze ${sql.table(`tracing.${table}`)}`.execute(db);
    const reads = await db.transaction().execute(async (trx) => {
      await sql`insert into tracing.feedback (project_id, id, weave_ref, feedback_type, payload, created_ms, scorer_id, scorer_tags,
          scorer_rating_names, scorer_rating_values, rating)
        values (${P}, gen_random_uuid(), 'weave:///x/call/y', 'wandb.note', '{}', ${T0 + 50 * HOUR}, 'Tox', array['toxic'], array['_rating_'], array[0.5], 0.5)`.execute(trx);
      const stats = await sql<{ relname: string; seq_tup_read: number; idx_scan: number }>`
        select relname, seq_tup_read::int, idx_scan::int from pg_stat_xact_user_tables
        where schemaname = 'tracing' and relname in ('feedback_hourly', 'feedback_hourly_groups', 'feedback_rating_cdf') order by relname`.execute(trx);
      await sql`rollback`.execute(trx); // (nothing of this test stays)
      return stats.rows;
    }).catch((error: Error) => (error.message.includes('rollback') ? [] : Promise.reject(error)));
    const rows = await sql<{ n: number }>`select count(*)::int as n from tracing.feedback_rating_cdf`.execute(db);
    expect(rows.rows[0]!.n).toBeGreaterThan(200);
    expect(reads.map((r) => r.relname)).toEqual(['feedback_hourly', 'feedback_hourly_groups', 'feedback_rating_cdf']);
    for (const table of reads) expect(table, table.relname).toMatchObject({ seq_tup_read: 0 });
    expect(reads.find((r) => r.relname === 'feedback_rating_cdf')!.idx_scan).toBeGreaterThan(0);
  });

  it('a rolled-back feedback write leaves the rollup unchanged', async () => {
    const before = await rollupSnapshot();
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`insert into tracing.feedback (project_id, id, weave_ref, feedback_type, payload, created_ms, scorer_tags)
          values (${P}, gen_random_uuid(), 'weave:///x/call/y', 'wandb.note', '{}', ${T0 + 5}, array['toxic'])`.execute(trx);
        throw new Error('rejected');
      }),
    ).rejects.toThrow('rejected');
    expect(await rollupSnapshot()).toEqual(before);
  });
});
