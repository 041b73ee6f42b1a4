import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { metricsOf } from '../evaluation/evaluation.service.js';
import { digestOfJson } from '../refs.js';
import { traces } from './helpers.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(async () => {
  await platform?.close();
});

const P = 'trellis/evalruns';
const SCORER = `weave:///${P}/object/Correct:s1`;
const RUN_FIELDS = 'id source evaluation model status exampleCount startedAt endedAt scores { scorer metric kind mean count }';

/** A run through the v2 evaluation API: one prediction per question, one Correct score ({ ok, closeness }) each. */
async function apiRun(model: string, answers: Record<string, { ok: boolean; closeness: number }>, finish = true): Promise<string> {
  const run = await traces(platform, '/v2/trellis/evalruns/evaluation_runs', { evaluation: `weave:///${P}/object/Arith:e1`, model });
  expect(run.status).toBe(200);
  const runId = run.body.evaluation_run_id as string;
  for (const [question, value] of Object.entries(answers)) {
    const prediction = await traces(platform, '/v2/trellis/evalruns/predictions', { model, inputs: { question }, output: `answer to ${question}`, evaluation_run_id: runId });
    const score = await traces(platform, '/v2/trellis/evalruns/scores', { prediction_id: prediction.body.prediction_id, scorer: SCORER, value, evaluation_run_id: runId });
    expect(score.status).toBe(200);
  }
  if (finish) expect((await traces(platform, `/v2/trellis/evalruns/evaluation_runs/${runId}/finish`, { summary: {} })).status).toBe(200);
  return runId;
}

/** A run shaped as the weave JS SDK 0.11 records it (Evaluation.evaluate → Evaluation.predictAndScore children, dataset row refs). */
async function sdkRun(model: string, rowDigests: string[], scores: Record<string, unknown>[]): Promise<string> {
  const now = Date.now();
  const call = async (fields: Record<string, unknown>, output: unknown, at: number) => {
    const start = await traces(platform, '/call/start', { start: { project_id: P, started_at: new Date(at).toISOString(), attributes: { weave: { source: 'js-sdk' } }, ...fields } });
    expect(start.status).toBe(200);
    const end = await traces(platform, '/call/end', { end: { project_id: P, id: start.body.id, ended_at: new Date(at + 5).toISOString(), output, summary: {} } });
    expect(end.status).toBe(200);
    return start.body as { id: string; trace_id: string };
  };
  const self = `weave:///${P}/object/capitals:ev1`;
  const modelRef = `weave:///${P}/op/${model}:m1`;
  const root = await call({ op_name: `weave:///${P}/op/Evaluation.evaluate:op1`, display_name: `capitals_${model}`, inputs: { self, model: modelRef } }, { summary: true }, now);
  for (const [index, digest] of rowDigests.entries()) {
    await call(
      {
        op_name: `weave:///${P}/op/Evaluation.predictAndScore:op2`,
        trace_id: root.trace_id,
        parent_id: root.id,
        inputs: { self, model: modelRef, example: `weave:///${P}/object/Dataset:d1/attr/rows/id/${digest}` },
      },
      { scores: scores[index], model_output: `out ${index}`, model_success: true, model_latency: 0.1 },
      now + index + 1,
    );
  }
  return root.id;
}

describe('metricsOf', () => {
  it('makes a bare number or boolean one metric, and each number or boolean leaf of an object one more', () => {
    expect(metricsOf('s', 0.5)).toEqual([{ scorer: 's', metric: null, kind: 'number', value: 0.5 }]);
    expect(metricsOf('s', { correct: true, detail: { f1: 0.25, note: 'x' }, list: [1] })).toEqual([
      { scorer: 's', metric: 'correct', kind: 'boolean', value: 1 },
      { scorer: 's', metric: 'detail.f1', kind: 'number', value: 0.25 },
    ]);
    expect(metricsOf('s', 'text')).toEqual([]);
  });
});

describe('Project.evaluationRuns and evaluationComparison', () => {
  let apiA: string;
  let apiB: string;
  let sdkA: string;
  let sdkB: string;
  let rowDigests: string[];
  beforeAll(async () => {
    apiA = await apiRun(`weave:///${P}/object/small:m1`, { '1+1': { ok: true, closeness: 1 }, '2+2': { ok: false, closeness: 0.5 } });
    apiB = await apiRun('large', { '1+1': { ok: true, closeness: 1 }, '2+2': { ok: true, closeness: 1 }, '3+3': { ok: true, closeness: 0.75 } }, false);
    const table = await traces(platform, '/table/create', { table: { project_id: P, rows: [{ question: 'France?' }, { question: 'Japan?' }] } });
    rowDigests = table.body.row_digests;
    sdkA = await sdkRun('geo_v1', rowDigests, [{ exact: { correct: true }, closeness: 1 }, { exact: { correct: false }, closeness: 0.2 }]);
    sdkB = await sdkRun('geo_v2', rowDigests, [{ exact: { correct: true }, closeness: 1 }, { exact: { correct: true }, closeness: 1 }]);
  });

  it('lists SDK and evaluation API runs newest first, with model, status, example count and per-scorer means', async () => {
    const { body } = await platform.graphql(`{ project(entity: "trellis", name: "evalruns") { evaluationRuns { nodes { ${RUN_FIELDS} } pageInfo { hasNextPage } } } }`);
    expect(body.errors).toBeUndefined();
    const runs = body.data.project.evaluationRuns.nodes;
    expect(runs.map((run: any) => run.id)).toEqual([sdkB, sdkA, apiB, apiA]);
    expect(runs[0]).toMatchObject({
      source: 'WEAVE_SDK',
      evaluation: 'capitals',
      model: 'geo_v2',
      status: 'SUCCESS',
      exampleCount: 2,
      scores: [
        { scorer: 'closeness', metric: null, kind: 'NUMBER', mean: 1, count: 2 },
        { scorer: 'exact', metric: 'correct', kind: 'BOOLEAN', mean: 1, count: 2 },
      ],
    });
    expect(runs[1].scores).toEqual([
      { scorer: 'closeness', metric: null, kind: 'NUMBER', mean: 0.6, count: 2 },
      { scorer: 'exact', metric: 'correct', kind: 'BOOLEAN', mean: 0.5, count: 2 },
    ]);
    expect(runs[2]).toMatchObject({ source: 'EVALUATION_API', evaluation: 'Arith', model: 'large', status: 'RUNNING', endedAt: null, exampleCount: 3 });
    expect(runs[2].scores).toEqual([
      { scorer: 'Correct', metric: 'closeness', kind: 'NUMBER', mean: 2.75 / 3, count: 3 },
      { scorer: 'Correct', metric: 'ok', kind: 'BOOLEAN', mean: 1, count: 3 },
    ]);
    expect(runs[3]).toMatchObject({ model: 'small', status: 'SUCCESS', exampleCount: 2, scores: [{ metric: 'closeness', mean: 0.75 }, { metric: 'ok', mean: 0.5 }] });
  });

  it('pages with first/after (Relay) and refuses a page beyond its maximum', async () => {
    const query = `query($after: String) { project(entity: "trellis", name: "evalruns") { evaluationRuns(first: 3, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } } }`;
    const first = await platform.graphql(query, { after: null });
    const page = first.body.data.project.evaluationRuns;
    expect(page.nodes.map((run: any) => run.id)).toEqual([sdkB, sdkA, apiB]);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const count = await platform.graphql('{ project(entity: "trellis", name: "evalruns") { evaluationRunCount } }');
    expect(count.body.data.project.evaluationRunCount).toBe(4);
    const second = await platform.graphql(query, { after: page.pageInfo.endCursor });
    expect(second.body.data.project.evaluationRuns).toMatchObject({ nodes: [{ id: apiA }], pageInfo: { hasNextPage: false } });
    const tooMany = await platform.graphql(`{ project(entity: "trellis", name: "evalruns") { evaluationRuns(first: 201) { nodes { id } } } }`);
    expect(tooMany.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, message: expect.stringMatching(/200/) });
  });

  it('compares two SDK runs per dataset row (resolved to the row) and per scorer', async () => {
    const { body } = await platform.graphql(
      `query($a: String!, $b: String!) { project(entity: "trellis", name: "evalruns") { evaluationComparison(runA: $a, runB: $b) {
        runA { model } runB { model } truncated
        examples { key inputs outputA outputB inA inB scores { scorer metric kind valueA valueB } } } } }`,
      { a: sdkA, b: sdkB },
    );
    expect(body.errors).toBeUndefined();
    const comparison = body.data.project.evaluationComparison;
    expect(comparison).toMatchObject({ runA: { model: 'geo_v1' }, runB: { model: 'geo_v2' }, truncated: false });
    expect(comparison.examples).toEqual([
      {
        key: rowDigests[0],
        inputs: { question: 'France?' },
        outputA: 'out 0',
        outputB: 'out 0',
        inA: true,
        inB: true,
        scores: [
          { scorer: 'closeness', metric: null, kind: 'NUMBER', valueA: 1, valueB: 1 },
          { scorer: 'exact', metric: 'correct', kind: 'BOOLEAN', valueA: 1, valueB: 1 },
        ],
      },
      {
        key: rowDigests[1],
        inputs: { question: 'Japan?' },
        outputA: 'out 1',
        outputB: 'out 1',
        inA: true,
        inB: true,
        scores: [
          { scorer: 'closeness', metric: null, kind: 'NUMBER', valueA: 0.2, valueB: 1 },
          { scorer: 'exact', metric: 'correct', kind: 'BOOLEAN', valueA: 0, valueB: 1 },
        ],
      },
    ]);
  });

  it('compares evaluation API runs on the digest of the inputs, showing examples only one run has', async () => {
    const { body } = await platform.graphql(
      `query($a: String!, $b: String!) { project(entity: "trellis", name: "evalruns") { evaluationComparison(runA: $a, runB: $b) {
        examples { key inputs inA inB scores { metric valueA valueB } } } } }`,
      { a: apiA, b: apiB },
    );
    const examples = body.data.project.evaluationComparison.examples;
    expect(examples.map((example: any) => [example.inputs.question, example.inA, example.inB])).toEqual([
      ['1+1', true, true],
      ['2+2', true, true],
      ['3+3', false, true],
    ]);
    expect(examples[0].key).toBe(digestOfJson({ question: '1+1' }));
    expect(examples[1].scores).toEqual([
      { metric: 'closeness', valueA: 0.5, valueB: 1 },
      { metric: 'ok', valueA: 0, valueB: 1 },
    ]);
    expect(examples[2].scores).toEqual([
      { metric: 'closeness', valueA: null, valueB: 0.75 },
      { metric: 'ok', valueA: null, valueB: 1 },
    ]);
  });

  it('also reads the Python SDK\'s shape (Evaluation.predict_and_score, output under `output`, the row inline)', async () => {
    const start = (fields: Record<string, unknown>) =>
      traces(platform, '/call/start', { start: { project_id: P, started_at: new Date(Date.now() - 60_000).toISOString(), attributes: {}, ...fields } });
    const root = await start({ op_name: `weave:///${P}/op/Evaluation.evaluate:py1`, inputs: { self: `weave:///${P}/object/py-eval:e1`, model: `weave:///${P}/object/PyModel:m1` } });
    const child = await start({
      op_name: `weave:///${P}/op/Evaluation.predict_and_score:py2`,
      parent_id: root.body.id,
      trace_id: root.body.trace_id,
      inputs: { self: `weave:///${P}/object/py-eval:e1`, example: { q: 'hi' } },
    });
    await traces(platform, '/call/end', { end: { project_id: P, id: child.body.id, ended_at: new Date().toISOString(), output: { output: 'hello', scores: { polite: { ok: true } } }, summary: {} } });
    const { body } = await platform.graphql(`query($a: String!) { project(entity: "trellis", name: "evalruns") {
      evaluationRunSummary(id: $a) { evaluation model status exampleCount scores { scorer metric mean } }
      evaluationComparison(runA: $a, runB: $a) { examples { key inputs outputA } } } }`, { a: root.body.id });
    expect(body.data.project.evaluationRunSummary).toEqual({ evaluation: 'py-eval', model: 'PyModel', status: 'RUNNING', exampleCount: 1, scores: [{ scorer: 'polite', metric: 'ok', mean: 1 }] });
    expect(body.data.project.evaluationComparison.examples).toEqual([{ key: digestOfJson({ q: 'hi' }), inputs: { q: 'hi' }, outputA: 'hello' }]);
  });

  it('compares up to four runs in the order named, each example with one result per run and the call that produced it', async () => {
    const query = `query($runs: [String!]!) { project(entity: "trellis", name: "evalruns") { evaluationRunsComparison(runs: $runs) {
      runs { id model } truncated
      examples { key inputs results { callId output values { scorer metric kind value } } } } } }`;
    const { body } = await platform.graphql(query, { runs: [sdkB, sdkA, apiA, apiB] });
    expect(body.errors).toBeUndefined();
    const comparison = body.data.project.evaluationRunsComparison;
    expect(comparison.runs.map((run: any) => run.model)).toEqual(['geo_v2', 'geo_v1', 'small', 'large']);
    // The baseline's (geo_v2's) rows first, then the API runs' inputs: 2 + 3 examples.
    expect(comparison.examples.map((example: any) => example.key)).toEqual([rowDigests[0], rowDigests[1], ...['1+1', '2+2', '3+3'].map((question) => digestOfJson({ question }))]);
    const japan = comparison.examples[1];
    expect(japan.inputs).toEqual({ question: 'Japan?' });
    expect(japan.results[2]).toBeNull();
    expect(japan.results[3]).toBeNull();
    expect(japan.results[0].values).toEqual([
      { scorer: 'closeness', metric: null, kind: 'NUMBER', value: 1 },
      { scorer: 'exact', metric: 'correct', kind: 'BOOLEAN', value: 1 },
    ]);
    expect(japan.results[1].values[0]).toEqual({ scorer: 'closeness', metric: null, kind: 'NUMBER', value: 0.2 });
    const onlyLarge = comparison.examples[4];
    expect(onlyLarge.results.map((result: any) => result !== null)).toEqual([false, false, false, true]);
    expect(onlyLarge.results[3].output).toBe('answer to 3+3');

    // Each result names the call it came from: a predictAndScore child of its run (SDK) or a prediction of its run (API).
    const calls = await platform.graphql(
      `query($a: String!, $b: String!) { project(entity: "trellis", name: "evalruns") { a: call(id: $a) { parentId opName } b: call(id: $b) { parentId inputs } } }`,
      { a: japan.results[1].callId, b: onlyLarge.results[3].callId },
    );
    expect(calls.body.data.project.a).toMatchObject({ parentId: sdkA, opName: expect.stringContaining('Evaluation.predictAndScore') });
    expect(calls.body.data.project.b).toMatchObject({ parentId: apiB, inputs: { question: '3+3' } });

    for (const runs of [[sdkA], [sdkA, sdkB, apiA, apiB, sdkA]]) {
      const refused = await platform.graphql(query, { runs });
      expect(refused.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, message: expect.stringMatching(/2 to 4 evaluation runs/) });
    }
    const missing = await platform.graphql(query, { runs: [sdkA, 'no-such-run'] });
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('answers NOT_FOUND for a run that is not an evaluation run, and refuses non-members', async () => {
    const plain = await traces(platform, '/call/start', { start: { project_id: P, op_name: 'plain', started_at: new Date().toISOString(), attributes: {}, inputs: {} } });
    const { body } = await platform.graphql(`query($a: String!) { project(entity: "trellis", name: "evalruns") { evaluationComparison(runA: $a, runB: $a) { truncated } } }`, {
      a: plain.body.id,
    });
    expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
    const outsider = await platform.createUser('eval-outsider', {});
    const refused = await platform.graphql(`{ project(entity: "trellis", name: "evalruns") { evaluationRuns { nodes { id } } } }`, {}, outsider.key);
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
