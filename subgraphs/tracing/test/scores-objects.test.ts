import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { digestOfBytes, digestOfJson } from '../refs.js';
import { traces } from './helpers.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.close();
});

const SCORER = 'weave:///trellis/evals/object/Correctness:abc123';

describe('POST /traces/v2/{entity}/{project}/scores', () => {
  it('records a score as a child call of the evaluation run and as feedback on the prediction', async () => {
    const run = await traces(platform, '/v2/trellis/evals/evaluation_runs', { evaluation: 'weave:///trellis/evals/object/MyEval:d1', model: 'weave:///trellis/evals/object/Model:m1' });
    expect(run.status).toBe(200);
    const runId = run.body.evaluation_run_id;
    const prediction = await traces(platform, '/v2/trellis/evals/predictions', { model: 'weave:///trellis/evals/object/Model:m1', inputs: { q: '2+2' }, output: '4', evaluation_run_id: runId });
    const predictionId = prediction.body.prediction_id;
    const score = await traces(platform, '/v2/trellis/evals/scores', { prediction_id: predictionId, scorer: SCORER, value: { correct: true }, evaluation_run_id: runId });
    expect(score.status).toBe(200);
    expect(Object.keys(score.body)).toEqual(['score_id']);

    const { body } = await platform.graphql(`query($run: String!, $score: String!, $prediction: String!) { project(entity: "trellis", name: "evals") {
      run: call(id: $run) { traceId children { nodes { id opName } } }
      score: call(id: $score) { opName output traceId parent { id } }
      prediction: call(id: $prediction) { output feedback { feedbackType payload runnableRef callRef } }
      scores { nodes { id predictionId scorer value evaluationRunId } }
    } }`, { run: runId, score: score.body.score_id, prediction: predictionId });
    const project = body.data.project;
    expect(project.score).toMatchObject({ opName: 'Correctness.score', output: { correct: true }, traceId: project.run.traceId, parent: { id: runId } });
    expect(project.run.children.nodes.map((c: any) => c.id)).toEqual(expect.arrayContaining([predictionId, score.body.score_id]));
    expect(project.prediction.feedback).toEqual([
      { feedbackType: 'wandb.runnable.Correctness', payload: { output: { correct: true } }, runnableRef: SCORER, callRef: `weave:///trellis/evals/call/${score.body.score_id}` },
    ]);
    expect(project.scores.nodes).toEqual([{ id: score.body.score_id, predictionId, scorer: SCORER, value: { correct: true }, evaluationRunId: runId }]);

    const finished = await traces(platform, `/v2/trellis/evals/evaluation_runs/${runId}/finish`, { summary: { accuracy: 1 } });
    expect(finished.body).toEqual({ success: true });
    const read = await platform.fetch(`/traces/v2/trellis/evals/evaluation_runs/${runId}`, { headers: { authorization: `Bearer ${platform.adminKey}` } });
    expect(await read.json()).toMatchObject({ evaluation_run_id: runId, status: 'finished', summary: { accuracy: 1 } });
  });

  it('without an evaluation run the score is its own trace root; value may be any JSON, even null', async () => {
    const prediction = await traces(platform, '/v2/trellis/evals/predictions', { model: 'Model', inputs: {}, output: 1 });
    for (const value of [null, 0.5, 'text', [1, 2]]) {
      const score = await traces(platform, '/v2/trellis/evals/scores', { prediction_id: prediction.body.prediction_id, scorer: SCORER, value });
      expect(score.status).toBe(200);
      const read = await traces(platform, '/call/read', { project_id: 'trellis/evals', id: score.body.score_id });
      expect(read.body.call).toMatchObject({ parent_id: null, output: value });
    }
  });

  it('rejects bad scorers (400), missing predictions or runs (404) and schema violations (422) without writing', async () => {
    const prediction = await traces(platform, '/v2/trellis/evals/predictions', { model: 'Model', inputs: {}, output: 1 });
    const before = await platform.graphql(`{ project(entity: "trellis", name: "evals") { callCount } }`);
    const notRef = await traces(platform, '/v2/trellis/evals/scores', { prediction_id: prediction.body.prediction_id, scorer: 'Correctness', value: 1 });
    expect(notRef.status).toBe(400);
    expect(notRef.body.reason).toMatch(/object ref/);
    const opRef = await traces(platform, '/v2/trellis/evals/scores', { prediction_id: prediction.body.prediction_id, scorer: 'weave:///trellis/evals/op/f:1', value: 1 });
    expect(opRef.status).toBe(400);
    const missing = await traces(platform, '/v2/trellis/evals/scores', { prediction_id: 'nope', scorer: SCORER, value: 1 });
    expect(missing.status).toBe(404);
    expect(missing.body.reason).toMatch(/Prediction nope not found/);
    const noRun = await traces(platform, '/v2/trellis/evals/scores', { prediction_id: prediction.body.prediction_id, scorer: SCORER, value: 1, evaluation_run_id: 'nope' });
    expect(noRun.status).toBe(404);
    const invalid = await traces(platform, '/v2/trellis/evals/scores', { scorer: SCORER, value: 1, extra: true });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail.map((d: any) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.prediction_id', 'body.extra']));
    const noValue = await traces(platform, '/v2/trellis/evals/scores', { prediction_id: 'x', scorer: SCORER });
    expect(noValue.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'value'], type: 'missing' }));
    const after = await platform.graphql(`{ project(entity: "trellis", name: "evals") { callCount } }`);
    expect(after.body.data.project.callCount).toBe(before.body.data.project.callCount);
  });

  it('answers 403 for projects of entities the caller does not belong to', async () => {
    const outsider = await platform.createUser('outsider');
    const res = await traces(platform, '/v2/trellis/evals/scores', { prediction_id: 'x', scorer: SCORER, value: 1 }, outsider.key);
    expect(res.status).toBe(403);
  });
});

describe('objects, tables, files, feedback', () => {
  it('obj/create is content-addressed and versioned; obj/read by digest, latest and vN; objs/query', async () => {
    const val = { b: 2, a: 1 };
    const first = await traces(platform, '/obj/create', { obj: { project_id: 'trellis/objs', object_id: 'Thing', val } });
    expect(first.body).toEqual({ digest: digestOfJson({ a: 1, b: 2 }), object_id: 'Thing' });
    expect(first.body.digest).toMatch(/^[A-Za-z0-9]{43}$/);
    const again = await traces(platform, '/obj/create', { obj: { project_id: 'trellis/objs', object_id: 'Thing', val: { a: 1, b: 2 } } });
    expect(again.body.digest).toBe(first.body.digest);
    const second = await traces(platform, '/obj/create', { obj: { project_id: 'trellis/objs', object_id: 'Thing', val: { a: 3 } } });
    const latest = await traces(platform, '/obj/read', { project_id: 'trellis/objs', object_id: 'Thing', digest: 'latest' });
    expect(latest.body.obj).toMatchObject({ digest: second.body.digest, version_index: 1, is_latest: 1, val: { a: 3 } });
    const v0 = await traces(platform, '/obj/read', { project_id: 'trellis/objs', object_id: 'Thing', digest: 'v0' });
    expect(v0.body.obj).toMatchObject({ digest: first.body.digest, is_latest: 0 });
    const op = await traces(platform, '/obj/create', { obj: { project_id: 'trellis/objs', object_id: 'my_op', val: { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': 'x' } } } });
    expect(op.status).toBe(200);
    const ops = await traces(platform, '/objs/query', { project_id: 'trellis/objs', filter: { is_op: true } });
    expect(ops.body.objs.map((o: any) => [o.object_id, o.kind])).toEqual([['my_op', 'op']]);
    const latestOnly = await traces(platform, '/objs/query', { project_id: 'trellis/objs', filter: { latest_only: true, object_ids: ['Thing'] } });
    expect(latestOnly.body.objs.map((o: any) => o.version_index)).toEqual([1]);
    const missing = await traces(platform, '/obj/read', { project_id: 'trellis/objs', object_id: 'Thing', digest: 'nope' });
    expect(missing.status).toBe(404);
  });

  it('objs/query honours sort_by (object_id, created_at) and metadata_only; other sort fields are 422s', async () => {
    for (const name of ['Beta', 'Alpha', 'Gamma']) {
      expect((await traces(platform, '/obj/create', { obj: { project_id: 'trellis/sorted', object_id: name, val: { name } } })).status).toBe(200);
    }
    const names = async (body: Record<string, unknown>) =>
      (await traces(platform, '/objs/query', { project_id: 'trellis/sorted', ...body })).body.objs.map((o: any) => o.object_id);
    expect(await names({ sort_by: [{ field: 'created_at', direction: 'desc' }] })).toEqual(['Gamma', 'Alpha', 'Beta']);
    expect(await names({ sort_by: [{ field: 'object_id', direction: 'desc' }] })).toEqual(['Gamma', 'Beta', 'Alpha']);
    const metadata = await traces(platform, '/objs/query', { project_id: 'trellis/sorted', metadata_only: true, filter: { object_ids: ['Alpha'] } });
    expect(metadata.body.objs).toEqual([expect.objectContaining({ object_id: 'Alpha', val: {}, version_index: 0 })]);
    const bad = await traces(platform, '/objs/query', { project_id: 'trellis/sorted', sort_by: [{ field: 'val.name', direction: 'asc' }] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ['body', 'sort_by', 0, 'field'], msg: expect.stringContaining('object_id or created_at'), type: 'value_error' }]);
  });

  it('table/create and table/query keep row order and digests', async () => {
    const rows = [{ x: 1 }, { x: 2 }, { x: 1 }];
    const created = await traces(platform, '/table/create', { table: { project_id: 'trellis/objs', rows } });
    expect(created.body.row_digests).toEqual(rows.map(digestOfJson));
    const queried = await traces(platform, '/table/query', { project_id: 'trellis/objs', digest: created.body.digest });
    expect(queried.body.rows.map((r: any) => [r.val, r.original_index])).toEqual([[{ x: 1 }, 0], [{ x: 2 }, 1], [{ x: 1 }, 2]]);
  });

  it('file/create (multipart) and file/content (bytes)', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
    const form = new FormData();
    form.append('project_id', 'trellis/files');
    form.append('file', new Blob([bytes]), 'blob');
    const created = await platform.fetch('/traces/file/create', { method: 'POST', headers: { authorization: `Bearer ${platform.adminKey}` }, body: form });
    expect(created.status).toBe(200);
    const { digest } = (await created.json()) as { digest: string };
    expect(digest).toBe(digestOfBytes(bytes));
    const content = await platform.fetch('/traces/file/content', {
      method: 'POST', headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: 'trellis/files', digest }),
    });
    expect(content.headers.get('content-type')).toMatch(/octet-stream/);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(bytes);
    const noFile = new FormData();
    noFile.append('project_id', 'trellis/files');
    const invalid = await platform.fetch('/traces/file/create', { method: 'POST', headers: { authorization: `Bearer ${platform.adminKey}` }, body: noFile });
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as any).detail[0].loc).toEqual(['body', 'file']);
  });

  it('feedback/create derives typed columns; feedback/query lists them', async () => {
    const created = await traces(platform, '/feedback/create', {
      project_id: 'trellis/fb', weave_ref: 'weave:///trellis/fb/call/c1', feedback_type: 'reaction', payload: { emoji: '👍' },
      scorer_tags: ['t'], scorer_ratings: { _rating_: 0.9 },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ id: expect.any(String), created_at: expect.any(String), payload: { emoji: '👍' } });
    const listed = await traces(platform, '/feedback/query', { project_id: 'trellis/fb' });
    expect(listed.body.result).toEqual([expect.objectContaining({ id: created.body.id, feedback_type: 'reaction', scorer_tags: ['t'], scorer_ratings: { _rating_: 0.9 }, span_status_code: 'UNSET' })]);
  });

  it('health and server_info', async () => {
    expect(await (await platform.fetch('/traces/health')).json()).toEqual({ status: 'ok' });
    expect(await (await platform.fetch('/traces/server_info')).json()).toHaveProperty('trace_server_version');
  });
});
