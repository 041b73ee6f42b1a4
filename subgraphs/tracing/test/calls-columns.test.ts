import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { expandCallRefs } from '../call/ref-expansion.js';
import type { TracingDatabase } from '../db/database.js';
import { traces } from './helpers.js';

/**
 * `columns`, `expand_columns` and `include_costs` of /calls/query, /calls/stream_query and Project.calls, as the Weave
 * trace server applies them (see call-columns.ts and ref-expansion.ts for the rules and where they come from).
 */
let platform: TestPlatform;
let databaseUrl: string;
const P = 'trellis/cols';
const t0 = Date.parse('2026-02-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

/** Every key of a call on the wire (the Weave CallSchema keys this server answers). */
const WIRE_KEYS = [
  'attributes', 'deleted_at', 'display_name', 'ended_at', 'exception', 'id', 'inputs', 'op_name', 'otel_dump', 'output', 'parent_id',
  'project_id', 'started_at', 'summary', 'thread_id', 'trace_id', 'turn_id', 'wb_run_id', 'wb_run_step', 'wb_user_id',
];
const REQUIRED = ['id', 'op_name', 'project_id', 'started_at', 'trace_id'];

let PROMPT = '';
let MODEL = '';
let OTHER_PROJECT_PROMPT = '';
const MISSING = 'weave:///trellis/cols/object/Nope:doesnotexist';
const TABLE = 'weave:///trellis/cols/table/abcdef';
const PROMPT_VAL = { _type: 'Prompt', text: 'Say hi' };

async function createObject(projectId: string, objectId: string, val: unknown): Promise<string> {
  const res = await traces(platform, '/obj/create', { obj: { project_id: projectId, object_id: objectId, val } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return `weave:///${projectId}/object/${objectId}:${res.body.digest}`;
}

/**
 * c1 has a value in every stored column, so any column read shows up; c2 (its child) shares c1's model ref, so an
 * expansion is checked not to leak from one call into another.
 */
beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  platform = await startTestPlatform({ databaseUrl });
  PROMPT = await createObject(P, 'Prompt', PROMPT_VAL);
  MODEL = await createObject(P, 'Model', { _type: 'Model', name: 'm', prompt: PROMPT, temperature: 0.5 });
  OTHER_PROJECT_PROMPT = await createObject('trellis/other', 'Prompt', PROMPT_VAL);
  const res = await traces(platform, '/call/upsert_batch', {
    batch: [
      {
        mode: 'start',
        req: { start: {
          project_id: P, id: 'c1', trace_id: 't1', op_name: 'weave:///trellis/cols/op/predict:v1', display_name: 'Predict', thread_id: 'th',
          turn_id: 'tu', started_at: at(0), attributes: { env: 'prod' }, otel_dump: { span: 1 }, wb_run_id: 'run', wb_run_step: 3,
          inputs: { x: 1, big: 'x'.repeat(10_000), model: MODEL, missing: MISSING, table: TABLE, elsewhere: OTHER_PROJECT_PROMPT, name_of_model: `${MODEL}/attr/name` },
        } },
      },
      { mode: 'end', req: { end: { project_id: P, id: 'c1', ended_at: at(250), output: PROMPT, summary: { usage: { m: { requests: 1 } } }, exception: 'boom' } } },
      { mode: 'start', req: { start: { project_id: P, id: 'c2', trace_id: 't1', parent_id: 'c1', op_name: 'child', started_at: at(100), attributes: {}, inputs: { model: MODEL } } } },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});
afterAll(async () => {
  await platform?.close();
});

/** The keys of a wire call that carry something (`attributes`/`inputs` are `{}` when not read, the rest null). */
const populated = (call: Record<string, unknown>) =>
  Object.keys(call)
    .filter((key) => call[key] !== null && call[key] !== undefined && !(typeof call[key] === 'object' && Object.keys(call[key] as object).length === 0))
    .sort();

async function query(body: Record<string, unknown>) {
  const res = await traces(platform, '/calls/query', { project_id: P, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.calls as Record<string, any>[];
}

/** The 422 details of a rejected read. */
async function detail(body: Record<string, unknown>, path = '/calls/query') {
  const res = await traces(platform, path, { project_id: P, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  return res.body.detail as { loc: (string | number)[]; msg: string; type: string }[];
}

async function stream(body: Record<string, unknown>) {
  const res = await traces(platform, '/calls/stream_query', { project_id: P, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as string).trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
}

describe('columns', () => {
  it('without columns every stored column is read', async () => {
    const [c1] = await query({ filter: { call_ids: ['c1'] } });
    expect(Object.keys(c1!).sort()).toEqual(WIRE_KEYS);
    expect(populated(c1!)).toEqual(WIRE_KEYS.filter((key) => key !== 'deleted_at' && key !== 'parent_id'));
  });

  it('reads only the required columns and the ones asked for (a dotted entry selects its column); the wire keys stay', async () => {
    const [c1] = await query({ filter: { call_ids: ['c1'] }, columns: ['inputs.x'] });
    // Every CallSchema key is still there (Weave answers null for what was not read, {} for attributes/inputs,
    // which its SDK's CallSchema requires), but only these were read from PostgreSQL.
    expect(Object.keys(c1!).sort()).toEqual(WIRE_KEYS);
    expect(populated(c1!)).toEqual([...REQUIRED, 'inputs'].sort());
    expect(c1!.inputs.big).toHaveLength(10_000);
    expect(c1).toMatchObject({ attributes: {}, output: null, summary: null, exception: null, display_name: null, ended_at: null, otel_dump: null });

    const [onlyId] = await query({ filter: { call_ids: ['c1'] }, columns: ['id'] });
    expect(populated(onlyId!)).toEqual(REQUIRED);
    expect(onlyId).toMatchObject({ id: 'c1', trace_id: 't1', op_name: 'weave:///trellis/cols/op/predict:v1', started_at: at(0), inputs: {} });
  });

  it('summary brings ended_at, exception and display_name; unstored Weave columns are accepted', async () => {
    const [c1] = await query({ filter: { call_ids: ['c1'] }, columns: ['summary.weave.latency_ms', 'output', 'storage_size_bytes', 'wb_run_step'] });
    expect(populated(c1!)).toEqual([...REQUIRED, 'display_name', 'ended_at', 'exception', 'output', 'summary', 'wb_run_step'].sort());
    expect(c1).toMatchObject({ summary: { usage: { m: { requests: 1 } } }, output: PROMPT, ended_at: at(250), exception: 'boom', wb_run_step: 3 });
  });

  it('stream_query projects the same way, on every line', async () => {
    const body = { columns: ['attributes', 'parent_id'], sort_by: [{ field: 'started_at', direction: 'asc' }] };
    const lines = await stream(body);
    expect(lines.map((call) => call.id)).toEqual(['c1', 'c2']);
    expect(lines.map(populated)).toEqual([
      [...REQUIRED, 'attributes'].sort(),
      [...REQUIRED, 'parent_id'].sort(), // c2's attributes are {}: read, but empty
    ]);
    expect(lines).toEqual(await query(body));
  });
});

describe('expand_columns', () => {
  const modelVal = { _type: 'Model', name: 'm', temperature: 0.5 };

  it('replaces object refs at the paths by the objects (with _ref), deeper paths inside expanded objects', async () => {
    const [c1, c2] = await query({ expand_columns: ['inputs.model.prompt', 'inputs.model', 'output', 'inputs.missing', 'inputs.table', 'inputs.elsewhere', 'inputs.name_of_model', 'inputs.x'] });
    expect(c1!.inputs.model).toEqual({ ...modelVal, prompt: { ...PROMPT_VAL, _ref: PROMPT }, _ref: MODEL });
    expect(c1!.output).toEqual({ ...PROMPT_VAL, _ref: PROMPT });
    // A ref with an extra path resolves to the value there; a non-object value is put in place without _ref.
    expect(c1!.inputs.name_of_model).toBe('m');
    // Left as the ref string: no such object, a table ref, a ref into another project; a non-ref value is untouched.
    expect(c1!.inputs).toMatchObject({ missing: MISSING, table: TABLE, elsewhere: OTHER_PROJECT_PROMPT, x: 1 });
    expect(c2!.inputs.model).toEqual(c1!.inputs.model);
  });

  it('expands only the paths named: the nested ref stays a ref without its own path', async () => {
    const [c1, c2] = await query({ expand_columns: ['inputs.model'] });
    expect(c1!.inputs.model).toEqual({ ...modelVal, prompt: PROMPT, _ref: MODEL });
    expect(c2!.inputs.model).toEqual({ ...modelVal, prompt: PROMPT, _ref: MODEL });
    expect(c1!.output).toBe(PROMPT);
    const [plain] = await query({ filter: { call_ids: ['c1'] } });
    expect(plain!.inputs.model).toBe(MODEL);
  });

  it('return_expanded_column_values: false leaves the refs for the client, and the paths are still checked', async () => {
    const [c1] = await query({ expand_columns: ['inputs.model', 'output'], return_expanded_column_values: false });
    expect(c1!.inputs.model).toBe(MODEL);
    expect(c1!.output).toBe(PROMPT);
    const lines = await stream({ expand_columns: ['inputs.model'], return_expanded_column_values: false });
    expect(lines[0]!.inputs.model).toBe(MODEL);
    expect(await detail({ expand_columns: ['op_name'], return_expanded_column_values: false })).toContainEqual(
      expect.objectContaining({ loc: ['body', 'expand_columns', 0] }),
    );
  });

  it('stream_query expands too, and expansion applies to the columns that were read', async () => {
    const lines = await stream({ expand_columns: ['inputs.model', 'output'], columns: ['inputs'] });
    expect(lines[0]!.inputs.model).toEqual({ ...modelVal, prompt: PROMPT, _ref: MODEL });
    expect(lines[0]!.output).toBeNull();
  });
});

describe('ref lookups are batched', () => {
  it('one query per path depth for a whole page, whatever the number of calls and refs', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    let statements = 0;
    const db = new Kysely<TracingDatabase>({ dialect: new PostgresDialect({ pool }), log: () => void statements++ }).withSchema('tracing');
    try {
      const page = Array.from({ length: 200 }, (_, i) => ({ id: `p${i}`, inputs: { model: i % 2 ? MODEL : PROMPT, other: MISSING } }));
      await expandCallRefs(db, P, page, ['inputs.model', 'inputs.other', 'inputs.model.prompt']);
      expect(statements).toBe(2);
      expect(page[1]!.inputs.model).toMatchObject({ name: 'm', prompt: { text: 'Say hi', _ref: PROMPT } });
      statements = 0;
      await expandCallRefs(db, P, [{ id: 'none', inputs: { model: 'not a ref' } }], ['inputs.model']);
      expect(statements).toBe(0);
    } finally {
      await db.destroy();
    }
  });
});

describe('GraphQL Project.calls and REST agree', () => {
  it('columns and expandColumns give the same calls', async () => {
    const args = { columns: ['inputs', 'summary'], expandColumns: ['inputs.model', 'inputs.model.prompt'] };
    const { body } = await platform.graphql(
      `query($columns: [String!], $expand: [String!]) { project(entity: "trellis", name: "cols") {
        calls(columns: $columns, expandColumns: $expand) { nodes { id traceId opName startedAt inputs output attributes summary exception endedAt displayName parentId status } } } }`,
      { columns: args.columns, expand: args.expandColumns },
    );
    expect(body.errors).toBeUndefined();
    const rest = await query({ columns: args.columns, expand_columns: args.expandColumns });
    expect(body.data.project.calls.nodes).toEqual(
      rest.map((call) => ({
        id: call.id, traceId: call.trace_id, opName: call.op_name, startedAt: call.started_at, inputs: call.inputs, output: call.output,
        // REST answers GraphQL's stored summary with Weave's derived status (and the rest) under summary.weave.
        attributes: null, summary: withoutDerived(call.summary), exception: call.exception, endedAt: call.ended_at, displayName: call.display_name, parentId: null,
        status: call.summary.weave.status,
      })),
    );
    expect(body.data.project.calls.nodes[0].inputs.model.prompt._ref).toBe(PROMPT);
  });
});

/** A REST summary without what the server derived into summary.weave (the stored summary, as GraphQL answers it). */
function withoutDerived(summary: Record<string, any>) {
  const { weave: _weave, ...stored } = summary;
  return Object.keys(stored).length > 0 ? stored : null;
}

describe('include_costs', () => {
  it('is accepted; no costs exist here, so none are added', async () => {
    const [c1] = await query({ filter: { call_ids: ['c1'] }, include_costs: true });
    // The stored summary and what the server derives under `weave` (calls-query.test.ts), no `costs`.
    expect(c1!.summary.usage).toEqual({ m: { requests: 1 } });
    expect(Object.keys(c1!.summary).sort()).toEqual(['usage', 'weave']);
    expect(c1!.summary.weave.costs).toBeUndefined();
  });
});

describe('bad columns are 422s at their place in the body', () => {

  it('wrong types', async () => {
    expect(await detail({ columns: 'inputs' })).toContainEqual(expect.objectContaining({ loc: ['body', 'columns'] }));
    expect(await detail({ columns: ['id', 1] })).toContainEqual(expect.objectContaining({ loc: ['body', 'columns', 1], type: 'string_type' }));
    expect(await detail({ expand_columns: [{ path: 'inputs.model' }] })).toContainEqual(expect.objectContaining({ loc: ['body', 'expand_columns', 0] }));
    expect(await detail({ include_costs: 'yes' })).toContainEqual(expect.objectContaining({ loc: ['body', 'include_costs'] }));
    expect(await detail({ columns: 7 }, '/calls/stream_query')).toContainEqual(expect.objectContaining({ loc: ['body', 'columns'] }));
  });

  it('unknown columns and expand paths outside the JSON columns, with the query problems in the same answer', async () => {
    expect(await detail({ columns: ['id', 'bogus.x', 'inputs..x'], expand_columns: ['op_name', 'inputs.model'], sort_by: [{ field: 'nope', direction: 'asc' }] })).toEqual([
      { loc: ['body', 'sort_by', 0, 'field'], msg: expect.stringContaining('Unknown call field "nope"'), type: 'value_error' },
      { loc: ['body', 'columns', 1], msg: expect.stringContaining('Unknown call column "bogus"'), type: 'value_error' },
      { loc: ['body', 'columns', 2], msg: expect.stringContaining('empty path segment'), type: 'value_error' },
      { loc: ['body', 'expand_columns', 0], msg: expect.stringContaining('not in inputs, output, attributes, summary'), type: 'value_error' },
    ]);
    expect((await detail({ columns: ['bogus'] }, '/calls/stream_query'))[0]!.loc).toEqual(['body', 'columns', 0]);
    const graphql = await platform.graphql(`{ project(entity: "trellis", name: "cols") { calls(columns: ["bogus"]) { nodes { id } } } }`);
    // GraphQL callers hear of it at the argument.
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', issues: [expect.objectContaining({ loc: ['columns', 0] })] });
  });
});
