import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../platform/graphql/connection.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { startOf, traces } from './helpers.js';

/**
 * The tracing graph as a GraphQL client meets it: typed inputs (the REST request schemas' rules, reported at
 * GraphQL paths), connections with bounded pages and opaque cursors, and REST routes that keep their wire
 * locations while running the same operations.
 */
let platform: TestPlatform;
const P = 'trellis/typed';
const ref = (id: string) => `weave:///${P}/call/${id}`;

beforeAll(async () => {
  platform = await startTestPlatform();
  expect((await traces(platform, '/call/start', startOf(P, { id: 'parent' }))).status).toBe(200);
});
afterAll(async () => {
  await platform?.close();
});

const CREATE_FEEDBACK = `mutation($input: FeedbackCreateInput!) {
  createFeedback(input: $input) { id projectId weaveRef feedbackType payload scorerTags scorerRatings spanStatusCode }
}`;

describe('typed mutations', () => {
  it('createFeedback takes a typed input and records what REST reads back', async () => {
    const input = { projectId: P, weaveRef: ref('parent'), feedbackType: 'wandb.note.1', payload: { note: 'typed' }, scorerTags: ['a'], scorerRatings: { _rating_: 0.5 } };
    const { body } = await platform.graphql(CREATE_FEEDBACK, { input });
    expect(body.errors).toBeUndefined();
    expect(body.data.createFeedback).toMatchObject({ ...input, spanStatusCode: 'UNSET' });
    const rest = await traces(platform, '/feedback/query', { project_id: P, query: { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: 'wandb.note.1' }] } } });
    expect(rest.body.result).toEqual([expect.objectContaining({ id: body.data.createFeedback.id, payload: { note: 'typed' }, scorer_ratings: { _rating_: 0.5 } })]);
  });

  it("reports the REST schema's rules at GraphQL paths, and REST still at the body's", async () => {
    const invalid = await platform.graphql(CREATE_FEEDBACK, { input: { projectId: 'no-slash', weaveRef: '', feedbackType: 'x', payload: {} } });
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
    expect(invalid.body.errors[0].extensions.issues.map((issue: { loc: unknown }) => issue.loc)).toEqual([
      ['input', 'projectId'],
      ['input', 'weaveRef'],
    ]);
    // A field the type requires is GraphQL's own coercion error, before anything runs.
    const missing = await platform.graphql(CREATE_FEEDBACK, { input: { projectId: P, weaveRef: ref('parent'), payload: {} } });
    expect(missing.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const rest = await traces(platform, '/feedback/create', { project_id: P, weave_ref: '', feedback_type: 'x', payload: {} });
    expect(rest).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'weave_ref'], type: 'string_too_short' }] } });
  });

  it('upsertCalls records a batch of starts and ends, all or nothing, and reports problems at GraphQL paths', async () => {
    const UPSERT = `mutation($items: [CallBatchItemInput!]!) { upsertCalls(items: $items) { id traceId } }`;
    const now = new Date().toISOString();
    const start = (id: string, fields: Record<string, unknown> = {}) => ({ start: { projectId: P, id, opName: 'op', startedAt: now, attributes: {}, inputs: { q: 1 }, ...fields } });
    const ok = await platform.graphql(UPSERT, {
      items: [start('batch-a', { traceId: 'batch-trace' }), { end: { projectId: P, id: 'batch-a', endedAt: now, summary: {}, output: 'done' } }],
    });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.upsertCalls).toEqual([{ id: 'batch-a', traceId: 'batch-trace' }, { id: null, traceId: null }]);
    const read = await traces(platform, '/call/read', { project_id: P, id: 'batch-a' });
    expect(read.body.call).toMatchObject({ trace_id: 'batch-trace', inputs: { q: 1 }, output: 'done' });

    const stored = async (id: string) =>
      (await platform.graphql(`query($id: String!) { project(entity: "trellis", name: "typed") { call(id: $id) { id } } }`, { id })).body.data.project.call;
    const issuesOf = (response: { body: any }) => {
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
      return response.body.errors[0].extensions.issues.map((issue: { loc: unknown }) => issue.loc);
    };
    // An item the request schema refuses: at the item's GraphQL path, and nothing of the batch is written.
    const bad = await platform.graphql(UPSERT, { items: [start('batch-b'), start('batch-c', { opName: '' }), { end: { projectId: P, id: 'batch-b', endedAt: 'never', summary: {} } }] });
    expect(issuesOf(bad)).toEqual([
      ['items', 1, 'start', 'opName'],
      ['items', 2, 'end', 'endedAt'],
    ]);
    expect(await stored('batch-b')).toBeNull();
    // Exactly one of start and end per item; and at least one item.
    expect(issuesOf(await platform.graphql(UPSERT, { items: [start('batch-d'), { ...start('batch-e'), end: { projectId: P, id: 'batch-e', endedAt: now, summary: {} } }] }))).toEqual([
      ['items', 1],
    ]);
    expect(issuesOf(await platform.graphql(UPSERT, { items: [] }))).toEqual([['items']]);
    expect(await stored('batch-d')).toBeNull();
  });

  it('objects, tables and files take typed inputs', async () => {
    const object = await platform.graphql(`mutation($input: TraceObjectCreateInput!) { createTraceObject(input: $input) { digest objectId } }`, {
      input: { projectId: P, objectId: 'Dataset', val: null },
    });
    expect(object.body.data.createTraceObject).toMatchObject({ objectId: 'Dataset' });
    const read = await traces(platform, '/obj/read', { project_id: P, object_id: 'Dataset', digest: 'latest' });
    expect(read.body.obj).toMatchObject({ digest: object.body.data.createTraceObject.digest, val: null });
    const badObject = await platform.graphql(`mutation($input: TraceObjectCreateInput!) { createTraceObject(input: $input) { digest } }`, {
      input: { projectId: P, objectId: 'no spaces', val: 1 },
    });
    expect(badObject.body.errors[0].extensions.issues[0].loc).toEqual(['input', 'objectId']);

    const table = await platform.graphql(`mutation($input: TraceTableCreateInput!) { createTraceTable(input: $input) { digest rowDigests } }`, {
      input: { projectId: P, rows: [{ i: 0 }, { i: 1 }] },
    });
    expect(table.body.data.createTraceTable.rowDigests).toHaveLength(2);

    const file = await platform.graphql(`mutation($input: TraceFileCreateInput!) { createTraceFile(input: $input) }`, {
      input: { projectId: P, contentBase64: Buffer.from('print("hi")').toString('base64') },
    });
    const content = await platform.graphql(`query($d: String!) { project(entity: "trellis", name: "typed") { traceFileContent(digest: $d) } }`, { d: file.body.data.createTraceFile });
    expect(Buffer.from(content.body.data.project.traceFileContent, 'base64').toString()).toBe('print("hi")');
    const notBase64 = await platform.graphql(`mutation($input: TraceFileCreateInput!) { createTraceFile(input: $input) }`, {
      input: { projectId: P, contentBase64: 'not base64!' },
    });
    expect(notBase64.body.errors[0].extensions.issues[0].loc).toEqual(['input', 'contentBase64']);
  });

  it('the evaluation API takes typed inputs; a required free-form value may be null', async () => {
    const mutate = (field: string, type: string, input: unknown, extra = '') =>
      platform.graphql(`mutation($input: ${type}) { ${field}(entity: "trellis", project: "typed", input: $input${extra}) }`, { input });
    const run = (await mutate('createEvaluationRun', 'EvaluationRunCreateInput!', { evaluation: 'Eval', model: 'Model' })).body.data.createEvaluationRun;
    const prediction = (await mutate('createPrediction', 'PredictionCreateInput!', { model: 'Model', inputs: { q: 1 }, output: null, evaluationRunId: run }))
      .body.data.createPrediction;
    const score = await mutate('createScore', 'ScoreCreateInput!', { predictionId: prediction, scorer: 'weave:///trellis/typed/object/Judge:d', value: null });
    expect(score.body.errors).toBeUndefined();
    const badScore = await mutate('createScore', 'ScoreCreateInput!', { predictionId: '', scorer: 'x', value: 1 });
    expect(badScore.body.errors[0].extensions.issues[0].loc).toEqual(['input', 'predictionId']);
    expect((await mutate('finishEvaluationRun', 'EvaluationRunFinishInput', { summary: { accuracy: 1 } }, `, id: "${run}"`)).body.data.finishEvaluationRun).toBe(true);
    const rest = await platform.fetch(`/traces/v2/trellis/typed/evaluation_runs/${run}`, { headers: { authorization: `Bearer ${platform.adminKey}` } });
    expect(await rest.json()).toMatchObject({ status: 'finished', summary: { accuracy: 1 } });
    // Over REST the same values (null included) are accepted and problems sit in the body.
    expect((await traces(platform, '/v2/trellis/typed/predictions', { model: 'Model', inputs: {}, output: null })).status).toBe(200);
    const restBad = await traces(platform, '/v2/trellis/typed/scores', { prediction_id: 'nope', scorer: 'weave:///trellis/typed/object/Judge:d', value: 1 });
    expect(restBad).toMatchObject({ status: 404 });
  });
});

describe('REST routes keep their wire locations for problems the operation finds', () => {
  it('a call start with an impossible date is a 422 at the body field (not at the GraphQL input)', async () => {
    const start = await traces(platform, '/call/start', startOf(P, { started_at: '2026-13-45T00:00:00Z' }));
    expect(start).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'start', 'started_at'], type: 'datetime_parsing' }] } });
    const batch = await traces(platform, '/call/upsert_batch', {
      batch: [
        { mode: 'start', req: startOf(P, { id: 'ok' }) },
        { mode: 'end', req: { end: { project_id: P, id: 'ok', ended_at: '2026-02-30T25:00:00Z', summary: {} } } },
      ],
    });
    expect(batch).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'batch', 1, 'req', 'end', 'ended_at'] }] } });
    const now = new Date().toISOString();
    const complete = await traces(platform, '/v2/trellis/typed/calls/complete', {
      batch: [{ project_id: 'trellis/other', id: 'c', trace_id: 't', op_name: 'op', started_at: now, ended_at: now, attributes: {}, inputs: {} }],
    });
    expect(complete).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'batch', 0, 'project_id'] }] } });
    // And the GraphQL caller hears of it at its own paths.
    const graphql = await platform.graphql(`mutation($input: CallStartInput!) { startCall(input: $input) { id } }`, {
      input: { projectId: P, opName: 'op', startedAt: '2026-13-45T00:00:00Z', attributes: {}, inputs: {} },
    });
    expect(graphql.body.errors[0].extensions.issues).toEqual([expect.objectContaining({ loc: ['input', 'startedAt'], type: 'datetime_parsing' })]);
  });
});

describe('connections', () => {
  beforeAll(async () => {
    const batch = Array.from({ length: 7 }, (_, i) => ({ mode: 'start', req: startOf(P, { id: `child-${i}`, parent_id: 'parent', started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() }) }));
    expect((await traces(platform, '/call/upsert_batch', { batch })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const res = await traces(platform, '/feedback/create', { project_id: P, weave_ref: ref(`child-${i}`), feedback_type: 'wandb.reaction.1', payload: { i } });
      expect(res.status).toBe(200);
    }
    for (let i = 0; i < 4; i++) expect((await traces(platform, '/obj/create', { obj: { project_id: P, object_id: `Obj${i}`, val: { i } } })).status).toBe(200);
  });

  /** Every node of a connection (`field` with ARGS for the paging arguments), fetched `first` at a time by following endCursor. */
  async function walk(field: string, selection: string, first: number): Promise<{ nodes: unknown[]; pages: number }> {
    const nested = field.startsWith('call(');
    const nodes: unknown[] = [];
    let after: string | null = null;
    for (let pages = 1; pages <= 20; pages++) {
      const { body }: { body: any } = await platform.graphql(
        `query($first: Int, $after: String) { project(entity: "trellis", name: "typed") { ${field.replace('ARGS', 'first: $first, after: $after')} {
          nodes { ${selection} } pageInfo { hasNextPage hasPreviousPage endCursor } } ${nested ? '}' : ''} } }`,
        { first, after },
      );
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const page: any = nested ? body.data.project.call.children : body.data.project[field.slice(0, field.indexOf('('))];
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      nodes.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) return { nodes, pages };
      after = page.pageInfo.endCursor;
    }
    throw new Error('too many pages');
  }

  it('page with first/after until hasNextPage is false, in the same order as REST', async () => {
    const children = await walk('call(id: "parent") { children(ARGS)', 'id', 3);
    expect(children).toEqual({ nodes: Array.from({ length: 7 }, (_, i) => ({ id: `child-${i}` })), pages: 3 });

    const feedback = await walk('feedback(ARGS)', 'id', 2);
    const rest = await traces(platform, '/feedback/query', { project_id: P });
    expect(feedback.nodes).toEqual(rest.body.result.map((record: { id: string }) => ({ id: record.id })));
    expect(feedback.pages).toBe(Math.ceil(rest.body.result.length / 2));

    const objects = await walk('traceObjects(filter: { objectIds: ["Obj0", "Obj1", "Obj2", "Obj3"] }, ARGS)', 'objectId', 3);
    expect(objects.nodes).toEqual(['Obj0', 'Obj1', 'Obj2', 'Obj3'].map((objectId) => ({ objectId })));

    const table = await traces(platform, '/table/create', { table: { project_id: P, rows: Array.from({ length: 5 }, (_, i) => ({ i })) } });
    const rows = await walk(`traceTableRows(digest: "${table.body.digest}", ARGS)`, 'originalIndex val', 2);
    expect(rows.nodes).toEqual(Array.from({ length: 5 }, (_, i) => ({ originalIndex: i, val: { i } })));
    // REST offset/limit are the same pages: an offset is a cursor of these lists.
    const restRows = await traces(platform, '/table/query', { project_id: P, digest: table.body.digest, offset: 2, limit: 2 });
    expect(restRows.body.rows.map((row: { original_index: number }) => row.original_index)).toEqual([2, 3]);
    const cursorRows = await platform.graphql(`query($after: String) { project(entity: "trellis", name: "typed") {
      traceTableRows(digest: "${table.body.digest}", first: 2, after: $after) { nodes { originalIndex } } } }`, { after: encodeCursor(2) });
    expect(cursorRows.body.data.project.traceTableRows.nodes).toEqual([{ originalIndex: 2 }, { originalIndex: 3 }]);
  });

  it('a page beyond the maximum, a negative page and a foreign cursor are validation errors at the argument', async () => {
    const read = (field: string, variables: Record<string, unknown>) =>
      platform.graphql(`query($first: Int, $after: String) { project(entity: "trellis", name: "typed") { ${field} { nodes { __typename } } } }`, variables);
    const cases: [string, number][] = [
      ['feedback(first: $first, after: $after)', 10_000],
      ['traceObjects(first: $first, after: $after)', 10_000],
      ['scores(first: $first, after: $after)', 1_000],
      ['calls(first: $first, after: $after)', 10_000],
    ];
    for (const [field, max] of cases) {
      const atMax = await read(field, { first: max });
      expect(atMax.body.errors, field).toBeUndefined();
      for (const first of [max + 1, -1]) {
        const beyond = await read(field, { first });
        expect(beyond.body.errors[0].extensions, field).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', issues: [{ loc: ['first'], type: 'less_than_equal' }] });
        expect(beyond.body.errors[0].message).toContain(String(max));
      }
      for (const after of ['not a cursor', encodeCursor(['a', 1]), encodeCursor(-5)]) {
        const foreign = await read(field, { after });
        expect(foreign.body.errors[0].extensions, `${field} ${after}`).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', issues: [{ loc: ['after'], msg: 'Not a cursor of this list' }] });
      }
    }
    const children = await platform.graphql(`query($first: Int) { project(entity: "trellis", name: "typed") { call(id: "parent") { children(first: $first) { nodes { id } } } } }`, {
      first: 10_001,
    });
    expect(children.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', issues: [{ loc: ['first'] }] });
  });
});
