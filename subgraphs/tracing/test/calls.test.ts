import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { startOf, traces } from './helpers.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.close();
});

const CALL = `query($id: String!) { project(entity: "trellis", name: "default") { call(id: $id) {
  id traceId parentId opName inputs output summary exception startedAt endedAt latencyMs wbUserId wbRunId wbRunStep displayName
  parent { id } children { nodes { id } } } } }`;

describe('POST /traces/call/start', () => {
  it('generates UUIDv7 id and trace_id and stores every field', async () => {
    const res = await traces(platform, '/call/start', startOf('trellis/default', {
      display_name: 'first', thread_id: 't1', turn_id: 'u1', otel_dump: { a: 1 }, svc_user_id: 'u-1', svc_run_id: 'r-1', svc_run_step: 7,
      inputs: { x: 1 }, attributes: { k: 'v' }, unknown_inner_key: true,
    }));
    expect(res.status).toBe(200);
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(res.body.trace_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    const { body } = await platform.graphql(CALL, { id: res.body.id });
    expect(body.data.project.call).toMatchObject({ id: res.body.id, traceId: res.body.trace_id, opName: 'my_op', inputs: { x: 1 },
      wbUserId: 'u-1', wbRunId: 'r-1', wbRunStep: 7, displayName: 'first', endedAt: null });
  });

  it('accepts the Weave names wb_user_id/wb_run_id/wb_run_step', async () => {
    const res = await traces(platform, '/call/start', startOf('trellis/default', { wb_user_id: 'w', wb_run_id: 'run', wb_run_step: 3 }));
    const { body } = await platform.graphql(CALL, { id: res.body.id });
    expect(body.data.project.call).toMatchObject({ wbUserId: 'w', wbRunId: 'run', wbRunStep: 3 });
  });

  it('does not create a second call for an existing id, and keeps the first start', async () => {
    const first = await traces(platform, '/call/start', startOf('trellis/default', { id: 'dup-1', inputs: { n: 1 } }));
    const second = await traces(platform, '/call/start', startOf('trellis/default', { id: 'dup-1', inputs: { n: 2 }, trace_id: 'other' }));
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const { body } = await platform.graphql(`{ project(entity: "trellis", name: "default") { calls(filter: { callIds: ["dup-1"] }) { nodes { inputs } } } }`);
    expect(body.data.project.calls.nodes).toEqual([{ inputs: { n: 1 } }]);
  });

  it('concurrent duplicate starts (one write batch) still make one call', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => traces(platform, '/call/start', startOf('trellis/default', { id: 'dup-c' }))));
    expect(new Set(results.map((r) => r.body.trace_id)).size).toBe(1);
    const { body } = await platform.graphql(`{ project(entity: "trellis", name: "default") { calls(filter: { callIds: ["dup-c"] }) { nodes { id } } } }`);
    expect(body.data.project.calls.nodes).toHaveLength(1);
  });

  it('a child without trace_id inherits its parent trace, and links resolve both ways', async () => {
    const parent = await traces(platform, '/call/start', startOf('trellis/default'));
    const child = await traces(platform, '/call/start', startOf('trellis/default', { parent_id: parent.body.id }));
    expect(child.body.trace_id).toBe(parent.body.trace_id);
    const { body } = await platform.graphql(CALL, { id: parent.body.id });
    expect(body.data.project.call.children.nodes).toEqual([{ id: child.body.id }]);
    const childRead = await platform.graphql(CALL, { id: child.body.id });
    expect(childRead.body.data.project.call.parent).toEqual({ id: parent.body.id });
  });

  it('rejects unknown wrapper keys, missing fields and wrong types with 422 detail', async () => {
    const extra = await traces(platform, '/call/start', { ...startOf('trellis/default'), extra: 1 });
    expect(extra.status).toBe(422);
    expect(extra.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'extra'], type: 'extra_forbidden' }));
    const missing = await traces(platform, '/call/start', { start: { project_id: 'trellis/default', started_at: new Date().toISOString(), attributes: {}, inputs: {} } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'start', 'op_name'], type: 'missing' }));
    const wrong = await traces(platform, '/call/start', startOf('trellis/default', { inputs: 'nope', svc_run_step: 'x' }));
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail.map((d: any) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.start.inputs', 'body.start.svc_run_step']));
  });

  it('creates the project on first write for members and answers 403 otherwise', async () => {
    const member = await platform.createUser('alice', { team1: 'MEMBER' });
    const ok = await traces(platform, '/call/start', startOf('team1/fresh'), member.key);
    expect(ok.status).toBe(200);
    const project = await platform.graphql(`{ project(entity: "team1", name: "fresh") { name callCount } }`);
    expect(project.body.data.project).toEqual({ name: 'fresh', callCount: 1 });
    const denied = await traces(platform, '/call/start', startOf('trellis/other'), member.key);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ reason: expect.stringContaining('trellis') });
    const absent = await platform.graphql(`{ project(entity: "trellis", name: "other") { name } }`);
    expect(absent.body.data.project).toBeNull();
    const anonymous = await platform.fetch('/traces/call/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(startOf('trellis/default')) });
    expect(anonymous.status).toBe(401);
  });

  it('a project already known to exist is still closed to callers outside its entity (every write route)', async () => {
    // trellis/default has been written to, so the adapter no longer asks identity about it: the tracing
    // mutations themselves must answer 403 and write nothing.
    expect((await traces(platform, '/call/start', startOf('trellis/default', { id: 'known-ok' }))).status).toBe(200);
    const outsider = await platform.createUser('dave', { team4: 'MEMBER' });
    const now = new Date().toISOString();
    const attempts = [
      await traces(platform, '/call/start', startOf('trellis/default', { id: 'known-denied' }), outsider.key),
      await traces(platform, '/call/end', { end: { project_id: 'trellis/default', id: 'known-ok', ended_at: now, summary: {}, output: 'x' } }, outsider.key),
      await traces(platform, '/call/upsert_batch', { batch: [{ mode: 'start', req: startOf('trellis/default', { id: 'known-denied' }) }] }, outsider.key),
      await traces(platform, '/v2/trellis/default/call/start', startOf('trellis/default', { id: 'known-denied' }), outsider.key),
      await traces(platform, '/feedback/create', { project_id: 'trellis/default', weave_ref: 'weave:///trellis/default/call/known-ok', feedback_type: 'note', payload: {} }, outsider.key),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(403);
      expect(attempt.body).toEqual({ reason: expect.stringContaining('trellis') });
    }
    const read = await traces(platform, '/call/read', { project_id: 'trellis/default', id: 'known-ok' });
    expect(read.body.call.ended_at).toBeNull();
    expect((await traces(platform, '/call/read', { project_id: 'trellis/default', id: 'known-denied' })).status).toBe(404);
    const feedback = await traces(platform, '/feedback/query', { project_id: 'trellis/default' });
    expect(feedback.body.result).toEqual([]);
  });

  it('GraphQL callers are checked by the tracing resolvers too', async () => {
    const member = await platform.createUser('bob', { team2: 'MEMBER' });
    const start = { projectId: 'trellis/default', opName: 'op', startedAt: new Date().toISOString(), attributes: {}, inputs: {} };
    const startCall = `mutation($input: CallStartInput!) { startCall(input: $input) { id } }`;
    const res = await platform.graphql(startCall, { input: start }, member.key);
    expect(res.body.errors![0].extensions.code).toBe('FORBIDDEN');
    // The typed input rejects a missing field before the resolver runs; the schema's own rules answer at GraphQL paths.
    const missing = await platform.graphql(startCall, { input: { ...start, opName: undefined } });
    expect(missing.body.errors![0].extensions.code).toBe('BAD_USER_INPUT');
    const invalid = await platform.graphql(startCall, { input: { ...start, opName: '', startedAt: 'yesterday' } });
    expect(invalid.body.errors![0].extensions.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc: ['input', 'opName'] }), expect.objectContaining({ loc: ['input', 'startedAt'] })]),
    );
  });
});

describe('ends, batches and reads', () => {
  it('upsert_batch writes starts and ends together and answers per item', async () => {
    const started_at = new Date().toISOString();
    const res = await traces(platform, '/call/upsert_batch', {
      batch: [
        { mode: 'start', req: { start: { project_id: 'trellis/default', id: 'b-root', trace_id: 'b-trace', op_name: 'root', started_at, attributes: {}, inputs: { q: 1 } } } },
        { mode: 'start', req: { start: { project_id: 'trellis/default', id: 'b-child', parent_id: 'b-root', op_name: 'child', started_at, attributes: {}, inputs: {} } } },
        { mode: 'end', req: { end: { project_id: 'trellis/default', id: 'b-child', ended_at: started_at, summary: {}, exception: 'boom' } } },
        { mode: 'end', req: { end: { project_id: 'trellis/default', id: 'b-root', ended_at: started_at, summary: { usage: {} }, output: { a: 42 } } } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ res: [{ id: 'b-root', trace_id: 'b-trace' }, { id: 'b-child', trace_id: 'b-trace' }, {}, {}] });
    const read = await traces(platform, '/call/read', { project_id: 'trellis/default', id: 'b-root' });
    expect(read.body.call).toMatchObject({ id: 'b-root', output: { a: 42 }, summary: { usage: {} }, inputs: { q: 1 } });
    const child = await traces(platform, '/call/read', { project_id: 'trellis/default', id: 'b-child' });
    expect(child.body.call).toMatchObject({ trace_id: 'b-trace', parent_id: 'b-root', exception: 'boom' });
  });

  it('a batch with one invalid item writes nothing', async () => {
    const started_at = new Date().toISOString();
    const res = await traces(platform, '/call/upsert_batch', {
      batch: [
        { mode: 'start', req: { start: { project_id: 'trellis/default', id: 'r-ok', op_name: 'x', started_at, attributes: {}, inputs: {} } } },
        { mode: 'end', req: { end: { project_id: 'trellis/default', id: 'r-ok', summary: {} } } },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'batch', 1, 'req', 'end', 'ended_at'] }));
    const read = await traces(platform, '/call/read', { project_id: 'trellis/default', id: 'r-ok' });
    expect(read.status).toBe(404);
    expect(read.body.reason).toMatch(/not found/);
  });

  it('call/end, call/update, v2 complete and start/end', async () => {
    const start = await traces(platform, '/v2/trellis/default/call/start', startOf('trellis/default'));
    expect(start.status).toBe(200);
    const end = await traces(platform, '/v2/trellis/default/call/end', { end: { id: start.body.id, ended_at: new Date().toISOString(), summary: {}, output: 'done' } });
    expect(end.status).toBe(200);
    expect((await traces(platform, '/call/update', { project_id: 'trellis/default', call_id: start.body.id, display_name: 'renamed' })).status).toBe(200);
    const read = await traces(platform, '/call/read', { project_id: 'trellis/default', id: start.body.id });
    expect(read.body.call).toMatchObject({ output: 'done', display_name: 'renamed' });
    const now = new Date().toISOString();
    const complete = await traces(platform, '/v2/trellis/default/calls/complete', {
      batch: [{ project_id: 'trellis/default', id: 'cc-1', trace_id: 'cc-t', op_name: 'op', started_at: now, ended_at: now, attributes: {}, inputs: {}, output: 5 }],
    });
    expect(complete.status).toBe(200);
    expect((await traces(platform, '/call/read', { project_id: 'trellis/default', id: 'cc-1' })).body.call).toMatchObject({ output: 5, trace_id: 'cc-t' });
  });

  it('v2 calls/complete keeps an earlier start, takes the end it brings, and of a call sent twice the first start and the last end', async () => {
    const at = (second: number) => `2026-11-27T10:00:0${second}.000Z`;
    const started = await traces(platform, '/v2/trellis/default/call/start', {
      start: { project_id: 'trellis/default', id: 'cc-started', trace_id: 'cc-t2', op_name: 'first-op', started_at: at(1), attributes: {}, inputs: { a: 1 } },
    });
    expect(started.status).toBe(200);
    const completed = await traces(platform, '/v2/trellis/default/calls/complete', {
      batch: [
        { project_id: 'trellis/default', id: 'cc-started', trace_id: 'cc-t2', op_name: 'later-op', started_at: at(2), ended_at: at(3), attributes: {}, inputs: { a: 2 }, output: 'late' },
        { project_id: 'trellis/default', id: 'cc-twice', trace_id: 'cc-t2', op_name: 'op-1', started_at: at(1), ended_at: at(2), attributes: {}, inputs: { n: 1 }, output: 'one' },
        { project_id: 'trellis/default', id: 'cc-twice', trace_id: 'cc-t2', op_name: 'op-2', started_at: at(3), ended_at: at(4), attributes: {}, inputs: { n: 2 }, output: 'two' },
      ],
    });
    expect(completed.status).toBe(200);
    const read = async (id: string) => (await traces(platform, '/call/read', { project_id: 'trellis/default', id })).body.call;
    expect(await read('cc-started')).toMatchObject({ op_name: 'first-op', inputs: { a: 1 }, output: 'late', ended_at: expect.stringMatching(/^2026-11-27T10:00:03/) });
    expect(await read('cc-twice')).toMatchObject({ op_name: 'op-1', inputs: { n: 1 }, output: 'two', ended_at: expect.stringMatching(/^2026-11-27T10:00:04/) });
  });

  it('calls/query filters and stream_query streams JSON lines', async () => {
    const now = new Date().toISOString();
    const batch = Array.from({ length: 1500 }, (_, i) => ({
      mode: 'start', req: { start: { project_id: 'trellis/streamed', id: `s-${String(i).padStart(5, '0')}`, trace_id: 'st', op_name: i % 2 ? 'odd' : 'even', started_at: now, attributes: {}, inputs: { i } } },
    }));
    expect((await traces(platform, '/call/upsert_batch', { batch })).status).toBe(200);
    const query = await traces(platform, '/calls/query', { project_id: 'trellis/streamed', filter: { op_names: ['odd'] }, limit: 5, sort_by: [{ field: 'id', direction: 'desc' }] });
    expect(query.body.calls.map((c: any) => c.id)).toEqual(['s-01499', 's-01497', 's-01495', 's-01493', 's-01491']);
    const stream = await traces(platform, '/calls/stream_query', { project_id: 'trellis/streamed' });
    expect(stream.headers.get('content-type')).toMatch(/application\/jsonl/);
    const lines = (stream.body as string).trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(1500);
    expect(new Set(lines.map((c) => c.id)).size).toBe(1500);
    const limited = await traces(platform, '/calls/stream_query', { project_id: 'trellis/streamed', limit: 1200, offset: 100 });
    const limitedLines = (limited.body as string).trim().split('\n');
    expect(limitedLines).toHaveLength(1200);
    const page = await platform.graphql(`{ project(entity: "trellis", name: "streamed") { calls(first: 100) { pageInfo { hasNextPage endCursor } } } }`);
    expect(page.body.data.project.calls.pageInfo.hasNextPage).toBe(true);
  });
});

describe('batch validation happens before any write', () => {
  it('an invalid item is a 422 at its field and the project named by the batch is not created', async () => {
    const member = await platform.createUser('carol', { team3: 'MEMBER' });
    const res = await traces(platform, '/call/upsert_batch', {
      batch: [
        { mode: 'start', req: { start: { project_id: 'team3/never', op_name: 'x', started_at: new Date().toISOString(), attributes: {}, inputs: {} } } },
        { mode: 'end', req: { end: { project_id: 'team3/never', id: 'x', summary: {} } } },
        { mode: 'start', req: { start: { project_id: 'team3/never', started_at: 'yesterday', attributes: {}, inputs: {} } } },
      ],
    }, member.key);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: any) => d.loc.join('.')).sort()).toEqual([
      'body.batch.1.req.end.ended_at',
      'body.batch.2.req.start.op_name',
      'body.batch.2.req.start.started_at',
    ]);
    const project = await platform.graphql(`{ project(entity: "team3", name: "never") { name } }`);
    expect(project.body.data.project).toBeNull();
    const empty = await traces(platform, '/call/upsert_batch', { batch: [] }, member.key);
    expect(empty.status).toBe(422);
  });
});
