import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { traces } from './helpers.js';

let platform: TestPlatform;
const P = 'trellis/default';
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1); // an hour boundary

/** Rows placed at chosen times: feedback/create stamps now(), so the test moves created_at/created_ms afterwards. */
async function feedbackAt(offsetMs: number, fields: Record<string, unknown>) {
  const res = await traces(platform, '/feedback/create', {
    project_id: P, weave_ref: `weave:///${P}/call/c1`, feedback_type: 'wandb.runnable.Scorer', payload: {}, ...fields,
  });
  expect(res.status).toBe(200);
  const db = platform.db.root as Kysely<any>;
  await sql`update tracing.feedback set created_ms = ${T0 + offsetMs}, created_at = to_timestamp(${(T0 + offsetMs) / 1000}) where id = ${res.body.id}::uuid`.execute(db);
  return res.body;
}

const aggregate = (body: Record<string, unknown>) => traces(platform, '/feedback/aggregate', { project_id: P, after_ms: T0, before_ms: T0 + 3 * HOUR, ...body });
const scorer = (name: string) => `weave:///${P}/object/${name}:abc`;

beforeAll(async () => {
  platform = await startTestPlatform();
  await feedbackAt(10, { runnable_ref: scorer('Tox'), scorer_tags: ['a', 'b'], scorer_ratings: { _rating_: 0.5, other: 2 }, span_agent_name: 'agent1', weave_ref: `weave:///${P}/agent_turn/t1` });
  await feedbackAt(20, { runnable_ref: scorer('Tox'), scorer_tags: ['a'], scorer_ratings: { _rating_: 1 } });
  await feedbackAt(HOUR + 5, { runnable_ref: scorer('Help'), scorer_ratings: { _rating_: 0.1 }, trigger_ref: `weave:///${P}/object/Monitor1:d`, span_status_code: 'ERROR' });
  await feedbackAt(HOUR + 6, { runnable_ref: scorer('Helpful2'), feedback_type: 'wandb.note' });
  await feedbackAt(2 * HOUR + 1, { feedback_type: 'other.kind', scorer_tags: ['c'], weave_ref: `weave:///${P}/agent_conversation/c9` });
  await feedbackAt(3 * HOUR, { runnable_ref: scorer('Tox') }); // at before_ms: outside the window
  await feedbackAt(-1, { runnable_ref: scorer('Tox') }); // before after_ms: outside
});
afterAll(async () => {
  await platform?.close();
});

describe('POST /traces/feedback/aggregate', () => {
  it('one global row without bucket or group, with tag and rating statistics', async () => {
    const res = await aggregate({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      after_ms: T0, before_ms: T0 + 3 * HOUR, time_bucket_seconds: null,
      buckets: [{ time_bucket_start_ms: null, group: {}, total_count: 5, scored_count: 4,
        tag_counts: { a: 2, b: 1, c: 1 }, rating_counts: { _rating_: 3, other: 1 }, rating_sums: { _rating_: 1.6, other: 2 } }],
    });
  });

  it('one global row even when nothing matches', async () => {
    const res = await aggregate({ scorer_ids: ['Nobody'] });
    expect(res.body.buckets).toEqual([{ time_bucket_start_ms: null, group: {}, total_count: 0, scored_count: 0, tag_counts: {}, rating_counts: {}, rating_sums: {} }]);
  });

  it('hourly buckets aligned to the epoch, grouped by scorer, ordered by bucket then group, empty ones omitted', async () => {
    const res = await aggregate({ time_bucket_seconds: 3600, group_by: ['scorer_id'] });
    expect(res.body.time_bucket_seconds).toBe(3600);
    expect(res.body.buckets.map((b: any) => [b.time_bucket_start_ms - T0, b.group.scorer_id, b.total_count])).toEqual([
      [0, 'Tox', 2], [HOUR, 'Help', 1], [HOUR, 'Helpful2', 1], [2 * HOUR, '', 1],
    ]);
    const odd = await aggregate({ after_ms: T0 + 7, time_bucket_seconds: 7200 });
    expect(odd.body.buckets.map((b: any) => [b.time_bucket_start_ms - T0, b.total_count])).toEqual([[0, 4], [2 * HOUR, 1]]);
  });

  it('filters: feedback type prefix, scorer/monitor exact or *, span types, tags, agent names, rating bounds', async () => {
    const total = async (body: Record<string, unknown>) => (await aggregate(body)).body.buckets[0].total_count;
    expect(await total({ feedback_types: ['wandb.'] })).toBe(4);
    expect(await total({ feedback_types: ['wandb.runnable*'] })).toBe(3);
    expect(await total({ scorer_ids: ['Help'] })).toBe(1);
    expect(await total({ scorer_ids: ['Help*'] })).toBe(2);
    expect(await total({ scorer_ids: ['Tox', 'Help'] })).toBe(3);
    expect(await total({ monitor_ids: ['Mon*'] })).toBe(1);
    expect(await total({ span_types: ['agent_turn'] })).toBe(1);
    expect(await total({ span_types: ['agent_conversation'] })).toBe(1);
    expect(await total({ tags: ['b', 'c'] })).toBe(2);
    expect(await total({ span_agent_names: ['agent1'] })).toBe(1);
    expect(await total({ rating_min: 0.5 })).toBe(2);
    expect(await total({ rating_max: 0.5 })).toBe(2);
    expect(await total({ rating_min: 0.2, rating_max: 0.9 })).toBe(1);
  });

  it('groups by several dimensions', async () => {
    const res = await aggregate({ group_by: ['span_status_code', 'span_agent_name'] });
    expect(res.body.buckets.map((b: any) => [b.group, b.total_count])).toEqual([
      [{ span_status_code: 'ERROR', span_agent_name: '' }, 1],
      [{ span_status_code: 'UNSET', span_agent_name: '' }, 3],
      [{ span_status_code: 'UNSET', span_agent_name: 'agent1' }, 1],
    ]);
  });

  it('validates every constraint with 422 detail pointing at the field', async () => {
    const locOf = async (body: Record<string, unknown>) => {
      const res = await traces(platform, '/feedback/aggregate', body);
      expect(res.status).toBe(422);
      return res.body.detail.map((d: any) => d.loc.join('.'));
    };
    expect(await locOf({ project_id: P, after_ms: -1, before_ms: 5 })).toEqual(['body.after_ms']);
    expect(await locOf({ project_id: P, after_ms: 1.5, before_ms: 5 })).toEqual(['body.after_ms']);
    expect(await locOf({ project_id: P, before_ms: 5 })).toEqual(['body.after_ms']);
    expect(await locOf({ project_id: P, after_ms: 0, before_ms: 'x' })).toEqual(['body.before_ms']);
    expect(await locOf({ project_id: P, after_ms: 0, before_ms: 5, time_bucket_seconds: 0 })).toEqual(['body.time_bucket_seconds']);
    expect(await locOf({ project_id: P, after_ms: 0, before_ms: 5, rating_min: 1.5 })).toEqual(['body.rating_min']);
    expect(await locOf({ project_id: P, after_ms: 0, before_ms: 5, rating_max: -0.1 })).toEqual(['body.rating_max']);
    expect(await locOf({ project_id: P, after_ms: 0, before_ms: 5, span_types: ['agent_x'] })).toEqual(['body.span_types.0']);
    expect(await locOf({ project_id: P, after_ms: 0, before_ms: 5, group_by: ['user'] })).toEqual(['body.group_by.0']);
    expect(await locOf({ project_id: P, after_ms: 0, before_ms: 5, extra: 1 })).toEqual(['body.extra']);
    expect(await locOf({ project_id: P, after_ms: 10, before_ms: 10 })).toEqual(['body.before_ms']);
    expect(await locOf({ project_id: P, after_ms: 0, before_ms: 10_001_000, time_bucket_seconds: 1 })).toEqual(['body.time_bucket_seconds']);
    const atCap = await traces(platform, '/feedback/aggregate', { project_id: P, after_ms: 0, before_ms: 10_000_000, time_bucket_seconds: 1 });
    expect(atCap.status).toBe(200);
  });

  it('answers 404 for a project that does not exist and 403 to callers outside the entity, known project or not', async () => {
    const body = { after_ms: T0, before_ms: T0 + HOUR };
    const missing = await traces(platform, '/feedback/aggregate', { ...body, project_id: 'trellis/no-such-project' });
    expect(missing).toMatchObject({ status: 404, body: { reason: 'Project trellis/no-such-project not found' } });
    // Asking again does not make it exist (only existing projects are remembered).
    expect((await traces(platform, '/feedback/aggregate', { ...body, project_id: 'trellis/no-such-project' })).status).toBe(404);

    const outsider = (await platform.createUser('aggregate-outsider')).key;
    const fresh = await traces(platform, '/feedback/aggregate', { ...body, project_id: 'trellis/not-yet-seen' }, outsider);
    expect(fresh.status).toBe(403);
    // trellis/default is known to this process by now (read above): the tracing resolver still refuses the outsider.
    expect((await aggregate({})).status).toBe(200);
    const known = await traces(platform, '/feedback/aggregate', { ...body, project_id: P }, outsider);
    expect(known.status).toBe(403);
    expect(known.body).toHaveProperty('reason');
  });

  it('keeps tag and rating names exact through every rollup, whatever characters they hold', async () => {
    // The rollups store names as JSON and values comma/semicolon-separated; names with those characters (and
    // quotes, backslashes, braces, non-ASCII) must come back as they went in, on the raw path and every rollup.
    const project = 'trellis/odd-names';
    const tags = ['a,b', 'c;d', 'q"u\\o', '{x}', 'ünï 😀'];
    const ratings = { _rating_: 0.5, 'r,1': 0.25, 'r;2': 2 };
    for (const offset of [10, 20]) {
      const res = await traces(platform, '/feedback/create', {
        project_id: project, weave_ref: `weave:///${project}/call/c1`, feedback_type: 'wandb.runnable.Odd', payload: {},
        runnable_ref: `weave:///${project}/object/Odd:abc`, scorer_tags: tags, scorer_ratings: ratings,
      });
      expect(res.status).toBe(200);
      await sql`update tracing.feedback set created_ms = ${T0 + offset}, created_at = to_timestamp(${(T0 + offset) / 1000}) where id = ${res.body.id}::uuid`
        .execute(platform.db.root as Kysely<any>);
    }
    const window = { project_id: project, after_ms: T0, before_ms: T0 + HOUR };
    const expected = {
      total_count: 2,
      tag_counts: Object.fromEntries(tags.map((tag) => [tag, 2])),
      rating_counts: { _rating_: 2, 'r,1': 2, 'r;2': 2 },
      rating_sums: { _rating_: 1, 'r,1': 0.5, 'r;2': 4 },
    };
    for (const filters of [{}, { tags: ['c;d'] }, { rating_min: 0.5, rating_max: 0.5 }, { tags: ['a,b'], rating_max: 1 }, { time_bucket_seconds: 60 }]) {
      const res = await traces(platform, '/feedback/aggregate', { ...window, ...filters });
      expect(res.status, JSON.stringify(filters)).toBe(200);
      expect(res.body.buckets, JSON.stringify(filters)).toEqual([expect.objectContaining(expected)]);
    }
  });

  it('GraphQL Project.feedbackAggregate answers the same', async () => {
    const res = await platform.graphql(`query($a: SafeInt!, $b: SafeInt!) { project(entity: "trellis", name: "default") {
      feedbackAggregate(input: { afterMs: $a, beforeMs: $b, timeBucketSeconds: 3600, groupBy: [SCORER_ID], scorerIds: ["Tox"] }) {
        afterMs timeBucketSeconds buckets { timeBucketStartMs group totalCount scoredCount tagCounts ratingCounts ratingSums } } } }`, { a: T0, b: T0 + 3 * HOUR });
    expect(res.body.data.project.feedbackAggregate.buckets).toEqual([
      { timeBucketStartMs: T0, group: { scorer_id: 'Tox' }, totalCount: 2, scoredCount: 2, tagCounts: { a: 2, b: 1 }, ratingCounts: { _rating_: 2, other: 1 }, ratingSums: { _rating_: 1.5, other: 2 } },
    ]);
    const columns = await platform.graphql(`query($a: SafeInt!, $b: SafeInt!) { project(entity: "trellis", name: "default") {
      feedbackAggregate(input: { afterMs: $a, beforeMs: $b, timeBucketSeconds: 3600, groupBy: [SCORER_ID] }) {
        buckets { timeBucketStartMs group totalCount scoredCount tagCounts ratingCounts ratingSums }
        bucketColumns { timeBucketStartMs group totalCount scoredCount tagCounts ratingCounts ratingSums } } } }`, { a: T0, b: T0 + 3 * HOUR });
    // bucketColumns holds the same buckets, one list per field, in the same order.
    const { buckets, bucketColumns } = columns.body.data.project.feedbackAggregate;
    expect(buckets).toHaveLength(4);
    expect(bucketColumns.totalCount.map((_: number, i: number) => Object.fromEntries(Object.keys(bucketColumns).map((field) => [field, bucketColumns[field][i]])))).toEqual(buckets);
    // Variables a client leaves unset arrive as null: for an optional list that is "no filter", not a bad value.
    const unset = await platform.graphql(`query($a: SafeInt!, $b: SafeInt!, $tags: [String!], $scorers: [String!]) { project(entity: "trellis", name: "default") {
      feedbackAggregate(input: { afterMs: $a, beforeMs: $b, timeBucketSeconds: 3600, groupBy: [SCORER_ID], tags: $tags, scorerIds: $scorers }) {
        buckets { totalCount } } } }`, { a: T0, b: T0 + 3 * HOUR, tags: null, scorers: null });
    expect(unset.body.errors).toBeUndefined();
    expect(unset.body.data.project.feedbackAggregate.buckets).toHaveLength(4);
    // The REST body's rules, reported at the GraphQL input's fields (REST callers still hear of `["body","before_ms"]`).
    const invalid = await platform.graphql(`{ project(entity: "trellis", name: "default") { feedbackAggregate(input: { afterMs: 5, beforeMs: 1 }) { afterMs } } }`);
    expect(invalid.body.errors![0].extensions.issues[0].loc).toEqual(['input', 'beforeMs']);
    const rest = await traces(platform, '/feedback/aggregate', { project_id: 'trellis/default', after_ms: 5, before_ms: 1 });
    expect(rest).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'before_ms'], msg: 'before_ms must be greater than after_ms', type: 'value_error' }] } });
  });
});
