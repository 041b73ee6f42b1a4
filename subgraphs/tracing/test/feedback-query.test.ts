import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { startOf, traces } from './helpers.js';

let platform: TestPlatform;
const P = 'trellis/fq';
const callRef = (id: string) => `weave:///${P}/call/${id}`;

/** Three calls; reactions on two of them, scores on all three (the second score of f1 is the newest). */
beforeAll(async () => {
  platform = await startTestPlatform();
  for (const id of ['f1', 'f2', 'f3']) expect((await traces(platform, '/call/start', startOf(P, { id }))).status).toBe(200);
  const feedback = async (id: string, feedback_type: string, payload: Record<string, unknown>) => {
    const res = await traces(platform, '/feedback/create', { project_id: P, weave_ref: callRef(id), feedback_type, payload });
    expect(res.status).toBe(200);
  };
  await feedback('f1', 'wandb.reaction.1', { emoji: '👍', note: 'Great answer' });
  await feedback('f2', 'wandb.reaction.1', { emoji: '👎', note: 'wrong' });
  await feedback('f1', 'wandb.runnable.Judge', { output: { score: 0.1 } });
  await feedback('f2', 'wandb.runnable.Judge', { output: { score: 0.7 } });
  await feedback('f3', 'wandb.runnable.Judge', { output: { score: 0.4 } });
  await feedback('f1', 'wandb.runnable.Judge', { output: { score: 0.9 } });
});
afterAll(async () => {
  await platform?.close();
});

const field = (name: string) => ({ $getField: name });
const lit = (value: unknown) => ({ $literal: value });

describe('/feedback/query `query` and `sort_by`', () => {
  it('selects by columns and payload paths and sorts by payload values', async () => {
    const res = await traces(platform, '/feedback/query', {
      project_id: P,
      query: { $expr: { $and: [{ $eq: [field('feedback_type'), lit('wandb.runnable.Judge')] }, { $gte: [field('payload.output.score'), lit(0.4)] }] } },
      sort_by: [{ field: 'payload.output.score', direction: 'desc' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.result.map((f: any) => [f.weave_ref, f.payload.output.score])).toEqual([
      [callRef('f1'), 0.9],
      [callRef('f2'), 0.7],
      [callRef('f3'), 0.4],
    ]);
    const reactions = await traces(platform, '/feedback/query', {
      project_id: P,
      query: { $expr: { $contains: { input: field('payload.note'), substr: lit('great'), case_insensitive: true } } },
    });
    expect(reactions.body.result.map((f: any) => f.payload.emoji)).toEqual(['👍']);
    const newest = await traces(platform, '/feedback/query', { project_id: P, sort_by: [{ field: 'created_at', direction: 'desc' }], limit: 1 });
    expect(newest.body.result[0].payload).toEqual({ output: { score: 0.9 } });
  });

  it('`fields` keeps only the named keys, payload paths included, and refuses unknown names with a 422 at their place', async () => {
    const res = await traces(platform, '/feedback/query', {
      project_id: P,
      fields: ['feedback_type', 'payload.emoji', 'payload.output.score', 'payload.missing.deeper'],
      query: { $expr: { $eq: [field('weave_ref'), lit(callRef('f2'))] } },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual([
      { feedback_type: 'wandb.reaction.1', 'payload.emoji': '👎', 'payload.output.score': null, 'payload.missing.deeper': null },
      { feedback_type: 'wandb.runnable.Judge', 'payload.emoji': null, 'payload.output.score': 0.7, 'payload.missing.deeper': null },
    ]);
    const whole = await traces(platform, '/feedback/query', { project_id: P, fields: ['payload'], limit: 1 });
    expect(whole.body.result).toEqual([{ payload: { emoji: '👍', note: 'Great answer' } }]);
    const bad = await traces(platform, '/feedback/query', { project_id: P, fields: ['id', 'secret_column', 'payload.'] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'fields', 1],
      ['body', 'fields', 2],
    ]);
  });

  it('GraphQL Project.feedback takes the same query, and bad fields are 422s at their place', async () => {
    const { body } = await platform.graphql(
      `query($q: TraceQueryInput) { project(entity: "trellis", name: "fq") { feedback(query: $q, sortBy: [{ field: "weave_ref", direction: DESC }]) { nodes { weaveRef } } } }`,
      { q: { expr: { in: { value: { getField: 'payload.emoji' }, list: [{ literal: '👍' }, { literal: '👎' }] } } } },
    );
    expect(body.data.project.feedback.nodes).toEqual([{ weaveRef: callRef('f2') }, { weaveRef: callRef('f1') }]);
    const invalid = await platform.graphql(
      `query($q: TraceQueryInput) { project(entity: "trellis", name: "fq") { feedback(query: $q, sortBy: [{ field: "payload.", direction: ASC }]) { nodes { id } } } }`,
      { q: { expr: { eq: [{ getField: 'score' }, { literal: 1 }] } } },
    );
    expect(invalid.body.errors[0].extensions.issues.map((issue: { loc: unknown }) => issue.loc)).toEqual([
      ['query', 'expr', 'eq', 0, 'getField'],
      ['sortBy', 0, 'field'],
    ]);
    const bad = await traces(platform, '/feedback/query', { project_id: P, query: { $expr: { $eq: [field('score'), lit(1)] } }, sort_by: [{ field: 'payload.', direction: 'asc' }] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: any) => d.loc)).toEqual([
      ['body', 'query', '$expr', '$eq', 0, '$getField'],
      ['body', 'sort_by', 0, 'field'],
    ]);
    expect(bad.body.detail[0].msg).toContain('Unknown feedback field "score"');
  });
});

describe('calls by their feedback (feedback.[type].payload.*)', () => {
  it('filters and sorts calls by the newest feedback of a type', async () => {
    const res = await traces(platform, '/calls/query', {
      project_id: P,
      query: { $expr: { $eq: [field('feedback.[wandb.reaction.1].payload.emoji'), lit('👍')] } },
    });
    expect(res.body.calls.map((c: any) => c.id)).toEqual(['f1']);
    const sorted = await traces(platform, '/calls/query', {
      project_id: P,
      sort_by: [{ field: 'feedback.[wandb.runnable.Judge].payload.output.score', direction: 'asc' }],
    });
    // f1's newest score (0.9) counts, not its first (0.1).
    expect(sorted.body.calls.map((c: any) => c.id)).toEqual(['f3', 'f2', 'f1']);
    const any = await traces(platform, '/calls/query', { project_id: P, query: { $expr: { $not: [{ $eq: [field('feedback.[*].payload'), lit(null)] }] } } });
    expect(any.body.calls.map((c: any) => c.id)).toEqual(['f1', 'f2', 'f3']);
    const bad = await traces(platform, '/calls/query', { project_id: P, sort_by: [{ field: 'feedback.emoji', direction: 'asc' }] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'sort_by', 0, 'field'], msg: expect.stringContaining('not a feedback field') });
  });
});

describe('include_feedback', () => {
  it('answers each call\'s feedback under summary.weave.feedback, and nothing extra without it', async () => {
    const res = await traces(platform, '/calls/query', { project_id: P, include_feedback: true, sort_by: [{ field: 'id', direction: 'asc' }] });
    const feedbackOf = (call: any) => call.summary?.weave?.feedback?.map((f: any) => f.feedback_type);
    expect(res.body.calls.map(feedbackOf)).toEqual([
      ['wandb.reaction.1', 'wandb.runnable.Judge', 'wandb.runnable.Judge'],
      ['wandb.reaction.1', 'wandb.runnable.Judge'],
      ['wandb.runnable.Judge'],
    ]);
    expect(res.body.calls[0].summary.weave.feedback[0]).toMatchObject({ weave_ref: callRef('f1'), payload: { emoji: '👍', note: 'Great answer' } });
    const stream = await traces(platform, '/calls/stream_query', { project_id: P, include_feedback: true, query: { $expr: { $eq: [field('id'), lit('f3')] } } });
    // One JSON line: the test helper has already parsed it.
    expect(feedbackOf(stream.body)).toEqual(['wandb.runnable.Judge']);
    const plain = await traces(platform, '/calls/query', { project_id: P });
    expect(plain.body.calls.map((call: any) => call.summary?.weave?.feedback)).toEqual([undefined, undefined, undefined]);
  });
});

describe('feedback/create weave_ref', () => {
  it('refuses a ref into another project with a 422 at the field, storing nothing (REST and GraphQL)', async () => {
    const before = (await traces(platform, '/feedback/query', { project_id: P })).body.result.length;
    for (const weave_ref of ['weave:///trellis/other/call/f1', 'weave:///someone/fq/object/Judge:abc', 'weave:///trellis']) {
      const res = await traces(platform, '/feedback/create', { project_id: P, weave_ref, feedback_type: 'note', payload: {} });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'weave_ref'], type: 'value_error' });
    }
    const graphql = await platform.graphql('mutation($input: FeedbackCreateInput!) { createFeedback(input: $input) { id } }', {
      input: { projectId: P, weaveRef: 'weave:///trellis/other/call/f1', feedbackType: 'note', payload: {} },
    });
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', issues: [expect.objectContaining({ loc: ['input', 'weaveRef'] })] });
    expect((await traces(platform, '/feedback/query', { project_id: P })).body.result.length).toBe(before);
    // A ref into the project itself (call or object) is stored.
    for (const weave_ref of [callRef('f3'), `weave:///${P}/object/Judge:abc`]) {
      expect((await traces(platform, '/feedback/create', { project_id: P, weave_ref, feedback_type: 'note', payload: {} })).status).toBe(200);
    }
  });
});
