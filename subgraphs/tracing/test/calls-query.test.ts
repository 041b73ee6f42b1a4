import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { traces } from './helpers.js';

let platform: TestPlatform;
const P = 'trellis/q';
const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();
const MODEL = 'weave:///trellis/q/object/Model:abc';
const DATASET = 'weave:///trellis/q/object/Dataset:d1';
const RESULT = 'weave:///trellis/q/object/Result:r1';

/**
 * c1 root, ended, display name; c2 child of c1 with a failed descendant; c3 failed, a numeric string input and a ref
 * as output; c4 still running. Enough variety that every operator below selects a different subset.
 */
beforeAll(async () => {
  platform = await startTestPlatform();
  const start = (id: string, fields: Record<string, unknown>) => ({
    mode: 'start',
    req: { start: { project_id: P, id, trace_id: 'tq', attributes: {}, inputs: {}, ...fields } },
  });
  const end = (id: string, fields: Record<string, unknown>) => ({ mode: 'end', req: { end: { project_id: P, id, summary: {}, ...fields } } });
  const res = await traces(platform, '/call/upsert_batch', {
    batch: [
      start('c1', { op_name: 'weave:///trellis/q/op/predict:v1', display_name: 'LLM call', started_at: at(0), attributes: { env: 'prod' },
        inputs: { x: 5, text: 'Hello World', model: MODEL, nested: { tags: ['a', 'b'] } } }),
      end('c1', { ended_at: at(1500), output: { score: 0.9, label: 'yes' }, summary: { usage: { tokens: 100 } } }),
      start('c2', { op_name: 'weave:///trellis/q/op/predict:v2', parent_id: 'c1', started_at: at(1000),
        inputs: { x: 10, text: 'goodbye', items: [{ ref: DATASET }] } }),
      end('c2', { ended_at: at(1200), output: { score: 0.2, label: 'no' }, summary: { usage: { tokens: 50 }, status_counts: { error: 1 } } }),
      start('c3', { op_name: 'train', started_at: at(2000), inputs: { x: '7' }, attributes: { env: 'dev' } }),
      end('c3', { ended_at: at(2100), output: RESULT, exception: 'boom' }),
      start('c4', { op_name: 'weave:///trellis/q/op/predict:v1', parent_id: 'c1', started_at: at(3000), inputs: { x: 1, flag: true } }),
    ],
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await platform?.close();
});

const field = (name: string) => ({ $getField: name });
const lit = (value: unknown) => ({ $literal: value });

async function ids(expr: unknown, extra: Record<string, unknown> = {}): Promise<string[]> {
  const res = await traces(platform, '/calls/query', { project_id: P, query: { $expr: expr }, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.calls.map((call: { id: string }) => call.id);
}

describe('/calls/query `query` operators', () => {
  it('$eq on columns and on JSON paths, typed by the other side', async () => {
    expect(await ids({ $eq: [field('op_name'), lit('train')] })).toEqual(['c3']);
    expect(await ids({ $eq: [field('inputs.x'), lit(5)] })).toEqual(['c1']);
    // A numeric string compared with a string literal is compared as text, with a number numerically.
    expect(await ids({ $eq: [field('inputs.x'), lit('7')] })).toEqual(['c3']);
    expect(await ids({ $eq: [field('inputs.x'), lit(7)] })).toEqual(['c3']);
    expect(await ids({ $eq: [field('inputs.nested.tags.1'), lit('b')] })).toEqual(['c1']);
    expect(await ids({ $eq: [field('inputs.flag'), lit(true)] })).toEqual(['c4']);
    expect(await ids({ $eq: [field('parent_id'), lit(null)] })).toEqual(['c1', 'c3']);
    expect(await ids({ $eq: [field('output.score'), lit(null)] })).toEqual(['c3', 'c4']);
  });

  it('$gt and $gte compare numerically, dates by ISO string or epoch seconds', async () => {
    expect(await ids({ $gt: [field('inputs.x'), lit(5)] })).toEqual(['c2', 'c3']);
    expect(await ids({ $gte: [field('inputs.x'), lit(5)] })).toEqual(['c1', 'c2', 'c3']);
    expect(await ids({ $gt: [field('summary.usage.tokens'), lit(60)] })).toEqual(['c1']);
    expect(await ids({ $gt: [field('started_at'), lit(at(1500))] })).toEqual(['c3', 'c4']);
    expect(await ids({ $gte: [field('started_at'), lit((t0 + 2000) / 1000)] })).toEqual(['c3', 'c4']);
    expect(await ids({ $gt: [field('wb_run_step'), lit(0)] })).toEqual([]);
  });

  it('$in with literal lists and with mixed operands', async () => {
    expect(await ids({ $in: [field('op_name'), [lit('train'), lit('weave:///trellis/q/op/predict:v2')]] })).toEqual(['c2', 'c3']);
    expect(await ids({ $in: [field('inputs.x'), [lit(1), lit(10)]] })).toEqual(['c2', 'c4']);
    expect(await ids({ $in: [field('id'), [lit('c1'), field('parent_id')]] })).toEqual(['c1']);
    expect(await ids({ $in: [field('id'), []] })).toEqual([]);
  });

  it('$contains is a substring match, optionally case-insensitive', async () => {
    expect(await ids({ $contains: { input: field('display_name'), substr: lit('llm'), case_insensitive: true } })).toEqual(['c1']);
    expect(await ids({ $contains: { input: field('display_name'), substr: lit('llm') } })).toEqual([]);
    expect(await ids({ $contains: { input: field('inputs.text'), substr: lit('o W') } })).toEqual(['c1']);
    // LIKE wildcards in the substring are plain characters.
    expect(await ids({ $contains: { input: field('inputs.text'), substr: lit('%') } })).toEqual([]);
  });

  it('$and, $or and $not nest; $not holds where the field is missing', async () => {
    expect(await ids({ $not: [{ $eq: [field('inputs.flag'), lit(true)] }] })).toEqual(['c1', 'c2', 'c3']);
    const expr = {
      $or: [
        { $and: [{ $gt: [field('output.score'), lit(0.5)] }, { $eq: [field('attributes.env'), lit('prod')] }] },
        { $eq: [field('exception'), lit('boom')] },
      ],
    };
    expect(await ids(expr)).toEqual(['c1', 'c3']);
    expect(await ids({ $and: [{ $not: [expr] }, { $eq: [field('trace_id'), lit('tq')] }] })).toEqual(['c2', 'c4']);
  });

  it('$convert to int, double, string, bool and exists', async () => {
    expect(await ids({ $gt: [{ $convert: { input: field('inputs.x'), to: 'int' } }, lit(6)] })).toEqual(['c2', 'c3']);
    expect(await ids({ $eq: [{ $convert: { input: field('output.score'), to: 'double' } }, lit(0.9)] })).toEqual(['c1']);
    expect(await ids({ $eq: [{ $convert: { input: field('inputs.x'), to: 'string' } }, lit('10')] })).toEqual(['c2']);
    expect(await ids({ $or: [{ $convert: { input: field('inputs.flag'), to: 'bool' } }] })).toEqual(['c4']);
    expect(await ids({ $and: [{ $convert: { input: field('output.score'), to: 'exists' } }] })).toEqual(['c1', 'c2']);
  });

  it('summary.weave.status, latency_ms and trace_name are derived as Weave does', async () => {
    const status = async (value: string) => ids({ $eq: [field('summary.weave.status'), lit(value)] });
    expect(await status('success')).toEqual(['c1']);
    expect(await status('descendant_error')).toEqual(['c2']);
    expect(await status('error')).toEqual(['c3']);
    expect(await status('running')).toEqual(['c4']);
    expect(await ids({ $gte: [field('summary.weave.latency_ms'), lit(1000)] })).toEqual(['c1']);
    expect(await ids({ $eq: [field('summary.weave.trace_name'), lit('predict')] })).toEqual(['c2', 'c4']);
  });

  it('answers every call with summary.weave derived as Weave does, in /calls/query, /calls/stream_query and /call/read', async () => {
    const res = await traces(platform, '/calls/query', { project_id: P, sort_by: [{ field: 'id', direction: 'asc' }] });
    expect(res.status).toBe(200);
    const weave = Object.fromEntries(res.body.calls.map((call: any) => [call.id, call.summary.weave]));
    expect(weave).toEqual({
      c1: { status: 'success', latency_ms: 1500, display_name: 'LLM call' },
      c2: { status: 'descendant_error', latency_ms: 200, trace_name: 'predict' },
      c3: { status: 'error', latency_ms: 100, trace_name: 'train' },
      c4: { status: 'running', trace_name: 'predict' },
    });
    // The stored summary is kept around it.
    expect(res.body.calls[0].summary.usage).toEqual({ tokens: 100 });

    const streamed = await traces(platform, '/calls/stream_query', { project_id: P, filter: { call_ids: ['c4'] } });
    const line = typeof streamed.body === 'string' ? JSON.parse(streamed.body.trim()) : streamed.body;
    expect(line.summary).toEqual({ weave: { status: 'running', trace_name: 'predict' } });
    const read = await traces(platform, '/call/read', { project_id: P, id: 'c3' });
    expect(read.body.call.summary.weave).toEqual({ status: 'error', latency_ms: 100, trace_name: 'train' });

    // columns without the summary: nothing is derived into it.
    const projected = await traces(platform, '/calls/query', { project_id: P, filter: { call_ids: ['c1'] }, columns: ['inputs'] });
    expect(projected.body.calls[0].summary).toBeNull();
  });

  it('keeps what a client stored under summary.weave, but not in the keys the server derives', async () => {
    const res = await traces(platform, '/call/upsert_batch', {
      batch: [
        { mode: 'start', req: { start: { project_id: 'trellis/qw', id: 'w1', trace_id: 'tw', op_name: 'custom', started_at: at(0), attributes: {}, inputs: {} } } },
        { mode: 'end', req: { end: { project_id: 'trellis/qw', id: 'w1', ended_at: at(10), summary: { weave: { status: 'fake', mine: 1 } } } } },
      ],
    });
    expect(res.status).toBe(200);
    const read = await traces(platform, '/call/read', { project_id: 'trellis/qw', id: 'w1' });
    expect(read.body.call.summary.weave).toEqual({ mine: 1, status: 'success', latency_ms: 10, trace_name: 'custom' });
  });

  it('a field path is data, never SQL', async () => {
    expect(await ids({ $eq: [field("inputs.x'); drop table tracing.calls; --"), lit(1)] })).toEqual([]);
    expect(await ids({ $eq: [field('inputs."x'), lit(1)] })).toEqual([]);
    expect(await ids({ $eq: [field('op_name'), lit("train' or '1'='1")] })).toEqual([]);
    expect(await ids({ $eq: [field('trace_id'), lit('tq')] })).toHaveLength(4);
  });
});

describe('sort_by, filters, streaming and counting', () => {
  it('sorts by JSON fields: present first, then numerically, then textually', async () => {
    expect(await ids({ $eq: [field('trace_id'), lit('tq')] }, { sort_by: [{ field: 'inputs.x', direction: 'asc' }] })).toEqual(['c4', 'c1', 'c3', 'c2']);
    expect(await ids({ $eq: [field('trace_id'), lit('tq')] }, { sort_by: [{ field: 'output.score', direction: 'desc' }] })).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(await ids({ $eq: [field('trace_id'), lit('tq')] }, { sort_by: [{ field: 'summary.weave.latency_ms', direction: 'desc' }] })).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(await ids({ $eq: [field('trace_id'), lit('tq')] }, { sort_by: [{ field: 'attributes.env', direction: 'asc' }, { field: 'started_at', direction: 'desc' }] })).toEqual(['c3', 'c1', 'c4', 'c2']);
  });

  it('filter.input_refs and output_refs find refs at any depth; op_names accepts the :* version wildcard', async () => {
    const byFilter = async (filter: Record<string, unknown>) =>
      (await traces(platform, '/calls/query', { project_id: P, filter })).body.calls.map((call: { id: string }) => call.id);
    expect(await byFilter({ input_refs: [MODEL] })).toEqual(['c1']);
    expect(await byFilter({ input_refs: [DATASET, MODEL] })).toEqual(['c1', 'c2']);
    expect(await byFilter({ output_refs: [RESULT] })).toEqual(['c3']);
    expect(await byFilter({ output_refs: [MODEL] })).toEqual([]);
    expect(await byFilter({ op_names: ['weave:///trellis/q/op/predict:*'] })).toEqual(['c1', 'c2', 'c4']);
    expect(await byFilter({ op_names: ['weave:///trellis/q/op/predict:v1'] })).toEqual(['c1', 'c4']);
    expect(await byFilter({ op_names: ['weave:///trellis/q/op/pred:*'] })).toEqual([]);
    expect(await byFilter({ op_names: ['train', 'weave:///trellis/q/op/predict:*'], parent_ids: ['c1'], input_refs: [DATASET] })).toEqual(['c2']);
    expect(await byFilter({ trace_roots_only: true, wb_run_ids: ['none'] })).toEqual([]);
  });

  it('stream_query applies the query too, and query_stats counts what it selects', async () => {
    const stream = await traces(platform, '/calls/stream_query', { project_id: P, query: { $expr: { $gt: [field('inputs.x'), lit(4)] } }, sort_by: [{ field: 'inputs.x', direction: 'desc' }] });
    expect(stream.status).toBe(200);
    expect((stream.body as string).trim().split('\n').map((line) => JSON.parse(line).id)).toEqual(['c2', 'c3', 'c1']);
    const stats = await traces(platform, '/calls/query_stats', { project_id: P, filter: { trace_roots_only: true }, query: { $expr: { $eq: [field('summary.weave.status'), lit('error')] } } });
    expect(stats).toMatchObject({ status: 200, body: { count: 1 } });
    expect((await traces(platform, '/calls/query_stats', { project_id: P })).body).toEqual({ count: 4 });
    expect((await traces(platform, '/calls/query_stats', { project_id: P, limit: 2 })).body).toEqual({ count: 2 });
  });

  it('GraphQL Project.calls and callCount take the same query, typed', async () => {
    const { body } = await platform.graphql(
      `query($q: TraceQueryInput) { project(entity: "trellis", name: "q") {
        calls(query: $q, sortBy: [{ field: "inputs.x", direction: DESC }], filter: { outputRefs: null }) { nodes { id } }
        callCount(query: $q) } }`,
      { q: { expr: { contains: { input: { getField: 'op_name' }, substr: { literal: 'predict' } } } } },
    );
    expect(body.data.project.calls.nodes.map((n: { id: string }) => n.id)).toEqual(['c2', 'c1', 'c4']);
    expect(body.data.project.callCount).toBe(3);
  });

  it('every operator of the typed query selects what its $-form selects over REST', async () => {
    // [typed GraphQL expression, the same in Weave's wire form]; each selects a different subset of c1..c4.
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ eq: [{ getField: 'op_name' }, { literal: 'train' }] }, { $eq: [field('op_name'), lit('train')] }],
      [{ gt: [{ getField: 'inputs.x' }, { literal: 4 }] }, { $gt: [field('inputs.x'), lit(4)] }],
      [{ gte: [{ getField: 'started_at' }, { literal: at(2000) }] }, { $gte: [field('started_at'), lit(at(2000))] }],
      [{ not: { eq: [{ getField: 'parent_id' }, { literal: null }] } }, { $not: [{ $eq: [field('parent_id'), lit(null)] }] }],
      [
        { and: [{ eq: [{ getField: 'attributes.env' }, { literal: 'prod' }] }, { convert: { input: { getField: 'output.score' }, to: 'EXISTS' } }] },
        { $and: [{ $eq: [field('attributes.env'), lit('prod')] }, { $convert: { input: field('output.score'), to: 'exists' } }] },
      ],
      [
        { or: [{ eq: [{ getField: 'summary.weave.status' }, { literal: 'error' }] }, { eq: [{ getField: 'inputs.flag' }, { literal: true }] }] },
        { $or: [{ $eq: [field('summary.weave.status'), lit('error')] }, { $eq: [field('inputs.flag'), lit(true)] }] },
      ],
      [{ in: { value: { getField: 'id' }, list: [{ literal: 'c2' }, { literal: 'c4' }] } }, { $in: [field('id'), [lit('c2'), lit('c4')]] }],
      [
        { contains: { input: { getField: 'inputs.text' }, substr: { literal: 'WORLD' }, caseInsensitive: true } },
        { $contains: { input: field('inputs.text'), substr: lit('WORLD'), case_insensitive: true } },
      ],
      [
        { gt: [{ convert: { input: { getField: 'inputs.x' }, to: 'INT' } }, { literal: 6 }] },
        { $gt: [{ $convert: { input: field('inputs.x'), to: 'int' } }, lit(6)] },
      ],
    ];
    for (const [typed, wire] of cases) {
      const { body } = await platform.graphql(`query($q: TraceQueryInput) { project(entity: "trellis", name: "q") { calls(query: $q) { nodes { id } } callCount(query: $q) } }`, {
        q: { expr: typed },
      });
      expect(body.errors, JSON.stringify(typed)).toBeUndefined();
      const graphqlIds = body.data.project.calls.nodes.map((n: { id: string }) => n.id);
      const restIds = await ids(wire);
      expect(graphqlIds, JSON.stringify(typed)).toEqual(restIds);
      expect(restIds.length, JSON.stringify(wire)).toBeGreaterThan(0);
      expect(body.data.project.callCount).toBe(restIds.length);
    }
  });
});

describe('invalid queries are 422s that point into the body', () => {
  async function detail(body: Record<string, unknown>, path = '/calls/query') {
    const res = await traces(platform, path, { project_id: P, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    return res.body.detail as { loc: (string | number)[]; msg: string; type: string }[];
  }

  it('unknown fields, operators and malformed operands', async () => {
    expect(await detail({ query: { $expr: { $eq: [field('nope'), lit(1)] } } })).toEqual([
      { loc: ['body', 'query', '$expr', '$eq', 0, '$getField'], msg: expect.stringContaining('Unknown call field "nope"'), type: 'value_error' },
    ]);
    expect(await detail({ query: { $expr: { $and: [{ $eq: [field('id'), lit('a')] }, { $regex: 'x' }] } } })).toEqual([
      { loc: ['body', 'query', '$expr', '$and', 1, '$regex'], msg: expect.stringContaining('Unknown operator "$regex"'), type: 'value_error' },
    ]);
    const several = await detail({ query: { $expr: { $or: [{ $eq: [field('id')] }, { $in: [field('id'), lit('a')] }, { $contains: { input: field('id') } }] } } });
    expect(several.map((issue) => [issue.loc.join('.'), issue.type])).toEqual([
      ['body.query.$expr.$or.0.$eq', 'too_short'],
      ['body.query.$expr.$or.1.$in.1', 'list_type'],
      ['body.query.$expr.$or.2.$contains.substr', 'missing'],
    ]);
    expect((await detail({ query: { $expr: lit(true) } }))[0]).toMatchObject({ loc: ['body', 'query', '$expr', '$literal'], msg: expect.stringContaining('not an operation') });
    expect((await detail({ query: { $expr: { $and: [] } } }))[0]).toMatchObject({ loc: ['body', 'query', '$expr', '$and'], type: 'too_short' });
    expect((await detail({ query: { $expr: { $not: [{ $convert: { input: field('id'), to: 'float' } }] } } }))[0]).toMatchObject({
      loc: ['body', 'query', '$expr', '$not', 0, '$convert', 'to'], type: 'enum' });
    expect((await detail({ query: { $expr: { $gt: [field('started_at'), lit(true)] } } }))[0]).toMatchObject({
      loc: ['body', 'query', '$expr', '$gt'], msg: 'Cannot compare a date with a boolean' });
    expect((await detail({ query: { $expr: { $gt: [field('started_at'), lit('last tuesday')] } } }))[0]).toMatchObject({
      loc: ['body', 'query', '$expr', '$gt'], msg: expect.stringContaining('not a valid date') });
    expect((await detail({ query: { $expr: { $eq: [field('summary.weave.nope'), lit(1)] } } }))[0].msg).toContain('status, latency_ms, trace_name');
  });

  it('bounds the nesting and the size of an expression; filter lists of any length are one parameter', async () => {
    let deep: unknown = { $eq: [field('id'), lit('c1')] };
    for (let i = 0; i < 100; i++) deep = { $not: [deep] };
    expect((await detail({ query: { $expr: deep } }))[0]).toMatchObject({ msg: expect.stringContaining('nested more than 64 levels') });
    const wide = { $or: Array.from({ length: 6000 }, (_, i) => ({ $eq: [field('id'), lit(`x${i}`)] })) };
    expect(await detail({ query: { $expr: wide } })).toEqual([expect.objectContaining({ msg: expect.stringContaining('more than 5000 operands') })]);
    const callIds = [...Array.from({ length: 70_000 }, (_, i) => `none-${i}`), 'c3'];
    const many = await traces(platform, '/calls/query', { project_id: P, filter: { call_ids: callIds } });
    expect(many.status).toBe(200);
    expect(many.body.calls.map((call: { id: string }) => call.id)).toEqual(['c3']);
    const longIn = await ids({ $in: [field('id'), [...callIds.slice(0, 4000).map(lit), lit('c4')]] });
    expect(longIn).toEqual(['c4']);
  });

  it('the query wrapper, sort_by fields and every route that takes a query', async () => {
    expect(await detail({ query: { $expr: { $eq: [field('id'), lit('a')] }, extra: 1 } })).toContainEqual(expect.objectContaining({ loc: ['body', 'query', 'extra'], type: 'extra_forbidden' }));
    expect(await detail({ query: {} })).toContainEqual(expect.objectContaining({ loc: ['body', 'query', '$expr'], type: 'missing' }));
    expect(await detail({ sort_by: [{ field: 'started_at', direction: 'asc' }, { field: 'bogus', direction: 'asc' }] })).toEqual([
      { loc: ['body', 'sort_by', 1, 'field'], msg: expect.stringContaining('Unknown call field "bogus"'), type: 'value_error' },
    ]);
    const bad = { query: { $expr: { $eq: [field('nope'), lit(1)] } } };
    expect((await detail(bad, '/calls/stream_query'))[0].loc).toEqual(['body', 'query', '$expr', '$eq', 0, '$getField']);
    expect((await detail(bad, '/calls/query_stats'))[0].loc).toEqual(['body', 'query', '$expr', '$eq', 0, '$getField']);
  });

  it('a typed GraphQL query is checked by the same parser and compiler, its problems at GraphQL paths; REST keeps its body paths', async () => {
    const calls = `query($q: TraceQueryInput, $sort: [CallSortInput!]) { project(entity: "trellis", name: "q") { calls(query: $q, sortBy: $sort) { nodes { id } } } }`;
    const issues = async (q: unknown, sort: unknown = null) => {
      const { body } = await platform.graphql(calls, { q, sort });
      expect(body.errors?.[0]?.extensions, JSON.stringify(body)).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
      return body.errors[0].extensions.issues as { loc: (string | number)[]; msg: string }[];
    };
    expect(await issues({ expr: { eq: [{ literal: 1 }] } })).toEqual([expect.objectContaining({ loc: ['query', 'expr', 'eq'], msg: 'List should have at least 2 items' })]);
    // Deep in the tree: the unknown field inside not → in → list, and a sort key, in one answer.
    const deep = { expr: { and: [{ eq: [{ getField: 'id' }, { literal: 'c1' }] }, { not: { in: { value: { getField: 'id' }, list: [{ literal: 'x' }, { getField: 'nope' }] } } }] } };
    expect(await issues(deep, [{ field: 'bogus', direction: 'ASC' }])).toEqual([
      expect.objectContaining({ loc: ['query', 'expr', 'and', 1, 'not', 'in', 'list', 1, 'getField'], msg: expect.stringContaining('Unknown call field "nope"') }),
      expect.objectContaining({ loc: ['sortBy', 0, 'field'], msg: expect.stringContaining('Unknown call field "bogus"') }),
    ]);
    // GraphQL has no input unions: an operand with two fields (or none) is the parser's "exactly one operator".
    expect(await issues({ expr: { or: [{ getField: 'id', literal: 'c1' }, {}] } })).toEqual([
      expect.objectContaining({ loc: ['query', 'expr', 'or', 0], msg: expect.stringContaining('exactly one operator') }),
      expect.objectContaining({ loc: ['query', 'expr', 'or', 1], msg: expect.stringContaining('exactly one operator') }),
    ]);
    expect((await issues({ expr: { gt: [{ getField: 'started_at' }, { literal: true }] } }))[0]).toMatchObject({ loc: ['query', 'expr', 'gt'], msg: 'Cannot compare a date with a boolean' });
    let nested: Record<string, unknown> = { eq: [{ getField: 'id' }, { literal: 'c1' }] };
    for (let i = 0; i < 100; i++) nested = { not: nested };
    expect((await issues({ expr: nested }))[0]!.msg).toContain('nested more than 64 levels');
    // The same problems through REST: the same issues at their places in the body, as before the query was typed.
    const rest = await detail({
      query: { $expr: { $and: [{ $eq: [field('id'), lit('c1')] }, { $not: [{ $in: [field('id'), [lit('x'), field('nope')]] }] }] } },
      sort_by: [{ field: 'bogus', direction: 'asc' }],
    });
    expect(rest.map((issue) => issue.loc)).toEqual([
      ['body', 'query', '$expr', '$and', 1, '$not', 0, '$in', 1, 1, '$getField'],
      ['body', 'sort_by', 0, 'field'],
    ]);
    // A syntax error the typed form cannot hold is reported with the request's other problems, as before.
    const mixed = await detail({ query: { $expr: { $regex: 'x' } }, sort_by: [{ field: 'bogus', direction: 'asc' }], columns: ['bogus'] });
    expect(mixed.map((issue) => issue.loc)).toEqual([['body', 'query', '$expr', '$regex'], ['body', 'sort_by', 0, 'field'], ['body', 'columns', 0]]);
  });
});
