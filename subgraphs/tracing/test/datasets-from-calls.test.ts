import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { traces } from './helpers.js';

/**
 * Datasets from traces, through the public graph and the trace-server API: calls chosen by id or by the traces
 * list's search become a Weave Dataset version (inputs, output paths and a scorer's latest score as columns), a second
 * request appends, a row edit makes the next version; the trace-server API answers them as the Weave SDKs publish
 * datasets, and the published weave 0.11.1 package reads them back with ref(...).get(). Bad input changes nothing.
 */
const run = promisify(execFile);
const READ_SCRIPT = path.join(import.meta.dirname, 'read-weave-dataset.mjs');
const P = 'trellis/dsets';
let platform: TestPlatform;

const CREATE = `mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { objectId digest version ref rowCount } }`;
const EDIT = `mutation($input: DatasetRowEditInput!) { editDatasetRow(input: $input) { objectId digest version ref rowCount } }`;
const COLUMNS = [
  { name: 'question', source: 'inputs.messages.0.content' },
  { name: 'answer', source: 'output.content' },
  { name: 'expected', source: 'output.content' },
  { name: 'score', source: 'feedback.length_check' },
];

beforeAll(async () => {
  platform = await startTestPlatform();
  const call = (id: string, question: string, answer: string, startedAt: string) => [
    { mode: 'start', req: { start: { project_id: P, id, op_name: 'chat', started_at: startedAt, attributes: { env: 'prod' }, inputs: { messages: [{ role: 'user', content: question }] } } } },
    { mode: 'end', req: { end: { project_id: P, id, ended_at: startedAt, summary: {}, output: { role: 'assistant', content: answer } } } },
  ];
  const res = await traces(platform, '/call/upsert_batch', {
    batch: [
      ...call('c1', 'What is 2+2?', 'five', '2026-03-01T00:00:01.000Z'),
      ...call('c2', 'What is 3+3?', 'six', '2026-03-01T00:00:02.000Z'),
      ...call('c3', 'Name the aurora colour', 'green', '2026-03-01T00:00:03.000Z'),
    ],
  });
  expect(res.status).toBe(200);
  for (const [callId, output] of [['c1', 0.2], ['c1', 0.1], ['c2', 0.9]] as const) {
    const created = await traces(platform, '/feedback/create', { project_id: P, weave_ref: `weave:///${P}/call/${callId}`, feedback_type: 'wandb.runnable.length_check', payload: { output } });
    expect(created.status).toBe(200);
  }
});
afterAll(async () => {
  await platform?.close();
});

async function create(input: Record<string, unknown>, key?: string) {
  return platform.graphql(CREATE, { input: { projectId: P, dataset: 'arith', columns: COLUMNS, ...input } }, key);
}

async function versions(): Promise<number> {
  const { body } = await platform.graphql(`{ project(entity: "trellis", name: "dsets") { traceObjects(filter: { objectIds: ["arith"] }) { nodes { digest } } } }`);
  return body.data.project.traceObjects.nodes.length;
}

describe('datasets from traces', () => {
  it("takes every call the traces list's filter, query and search select (roots only, a status, an op), oldest first", async () => {
    const Q = 'trellis/dsets-all';
    const at = (second: number) => `2026-03-02T00:00:0${second}.000Z`;
    const call = (id: string, op: string, second: number, extra: { parent?: string; exception?: string } = {}) => [
      { mode: 'start', req: { start: { project_id: Q, id, trace_id: extra.parent ?? id, parent_id: extra.parent ?? null, op_name: op, started_at: at(second), attributes: {}, inputs: { q: id } } } },
      { mode: 'end', req: { end: { project_id: Q, id, ended_at: at(second), summary: {}, output: `answer of ${id}`, ...(extra.exception ? { exception: extra.exception } : {}) } } },
    ];
    const written = await traces(platform, '/call/upsert_batch', {
      batch: [...call('r1', 'chat', 1), ...call('t1', 'lookup', 2, { parent: 'r1' }), ...call('r2', 'chat', 3, { exception: 'boom' }), ...call('r3', 'chat', 4)],
    });
    expect(written.status).toBe(200);
    const make = (dataset: string, selection: Record<string, unknown>) =>
      platform.graphql(CREATE, { input: { projectId: Q, dataset, columns: [{ name: 'id', source: 'id' }, { name: 'q', source: 'inputs.q' }], ...selection } });
    const rowsOf = async (dataset: string) => {
      const read = await traces(platform, '/obj/read', { project_id: Q, object_id: dataset, digest: 'latest' });
      const table = await traces(platform, '/table/query', { project_id: Q, digest: read.body.obj.val.rows.split('/').at(-1) });
      return table.body.rows.map((row: { val: { id: string } }) => row.val.id);
    };

    // The list with "roots only" and status "success" ticked: r1 and r3 (t1 is a child, r2 failed).
    const succeeded = { $expr: { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'success' }] } };
    const roots = await make('roots-ok', { filter: { traceRootsOnly: true }, query: succeeded });
    expect(roots.body.errors).toBeUndefined();
    expect(roots.body.data.createDatasetFromCalls).toMatchObject({ rowCount: 2 });
    expect(await rowsOf('roots-ok')).toEqual(['r1', 'r3']);
    // An op name, as the list's op box sends it, with a limit.
    const lookups = await make('lookups', { query: { $expr: { $contains: { input: { $getField: 'op_name' }, substr: { $literal: 'look' }, case_insensitive: true } } } });
    expect(await rowsOf('lookups')).toEqual(['t1']);
    const firstTwo = await make('first-two', { filter: { opNames: ['chat'] }, limit: 2 });
    expect(firstTwo.body.data.createDatasetFromCalls).toMatchObject({ rowCount: 2 });
    expect(await rowsOf('first-two')).toEqual(['r1', 'r2']);

    // Nothing selected, an empty selection, ids with a filter: refused at the field, nothing stored.
    const none = await make('none', { filter: { opNames: ['absent'] } });
    expect(none.body.errors?.[0]?.extensions?.issues).toEqual([{ loc: ['input', 'filter'], msg: 'No call matches the search', type: 'value_error' }]);
    const empty = await make('none', { filter: {} });
    expect(empty.body.errors?.[0]?.extensions?.issues).toEqual([{ loc: ['input', 'filter'], msg: 'The search selects nothing: give at least one condition', type: 'value_error' }]);
    const both = await make('none', { callIds: ['r1'], filter: { traceRootsOnly: true } });
    expect(both.body.errors?.[0]?.extensions?.reason).toBe('VALIDATION_FAILED');
    const badQuery = await make('none', { query: { $expr: { $eq: [{ $getField: 'no_such_field' }, { $literal: 1 }] } } });
    expect(badQuery.body.errors?.[0]?.extensions?.reason).toBe('VALIDATION_FAILED');
    expect(badQuery.body.errors?.[0]?.extensions?.issues?.[0]?.loc?.slice(0, 2)).toEqual(['input', 'query']);
    const read = await traces(platform, '/obj/read', { project_id: Q, object_id: 'none', digest: 'latest' });
    expect(read.status).toBe(404);
  });

  it('refuses bad input and outsiders, storing nothing', async () => {
    const both = await create({ callIds: ['c1'], search: { text: 'what' } });
    expect(both.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
    const unknownCall = await create({ callIds: ['c1', 'nope'] });
    expect(unknownCall.body.errors?.[0]?.extensions?.issues).toEqual([{ loc: ['input', 'callIds', 1], msg: `No call nope in ${P}`, type: 'value_error' }]);
    const badSource = await create({ callIds: ['c1'], columns: [{ name: 'x', source: 'summary' }] });
    expect(badSource.body.errors?.[0]?.extensions?.reason).toBe('VALIDATION_FAILED');
    const nothing = await create({ search: { text: 'zebra' } });
    expect(nothing.body.errors?.[0]?.extensions?.issues?.[0]?.msg).toBe('No call matches the search');
    const outsider = await platform.createUser('dset-outsider', { others: 'ADMIN' });
    const forbidden = await create({ callIds: ['c1'] }, outsider.key);
    expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await versions()).toBe(0);
  });

  it('creates, appends and edits versions that the trace-server API and the weave SDK read as Datasets', async () => {
    const first = await create({ callIds: ['c2', 'c1'], description: 'arithmetic the model got wrong' });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.createDatasetFromCalls).toMatchObject({ objectId: 'arith', version: 'v0', rowCount: 2 });
    // The traces list's search (CallSearch): the words "aurora" → c3, appended after the two rows.
    const appended = await create({ search: { text: 'aurora' }, append: true });
    expect(appended.body.data.createDatasetFromCalls).toMatchObject({ version: 'v1', rowCount: 3 });
    const edited = await platform.graphql(EDIT, { input: { projectId: P, dataset: 'arith', rowIndex: 1, values: { expected: 'four' } } });
    expect(edited.body.errors).toBeUndefined();
    expect(edited.body.data.editDatasetRow).toMatchObject({ version: 'v2', rowCount: 3 });
    const badRow = await platform.graphql(EDIT, { input: { projectId: P, dataset: 'arith', rowIndex: 3, values: { expected: 'x' } } });
    expect(badRow.body.errors?.[0]?.extensions?.issues?.[0]).toMatchObject({ loc: ['input', 'rowIndex'], msg: 'The version has 3 rows' });
    expect(await versions()).toBe(3);

    // The trace-server API: /obj/read answers the Dataset object, its rows a table ref that /table/query reads.
    const read = await traces(platform, '/obj/read', { project_id: P, object_id: 'arith', digest: 'v2' });
    expect(read.status).toBe(200);
    expect(read.body.obj.val).toEqual({
      _type: 'Dataset',
      _class_name: 'Dataset',
      _bases: ['Object', 'BaseModel'],
      name: 'arith',
      description: 'arithmetic the model got wrong',
      rows: expect.stringMatching(new RegExp(`^weave:///${P}/table/`)),
    });
    const table = await traces(platform, '/table/query', { project_id: P, digest: read.body.obj.val.rows.split('/').at(-1) });
    const v2Rows = [
      { question: 'What is 3+3?', answer: 'six', expected: 'six', score: 0.9 },
      { question: 'What is 2+2?', answer: 'five', expected: 'four', score: 0.1 },
      { question: 'Name the aurora colour', answer: 'green', expected: 'green', score: null },
    ];
    expect(table.body.rows.map((row: { val: unknown }) => row.val)).toEqual(v2Rows);

    // The published weave package reads the versions back (v1 kept the uncorrected row).
    const { stdout } = await run(process.execPath, [READ_SCRIPT, P, 'arith:v0', 'arith:v2'], {
      env: { PATH: process.env.PATH, HOME: '/tmp/trellis-weave-datasets-home', WF_TRACE_SERVER_URL: `${platform.url}/traces`, WANDB_BASE_URL: platform.url, WANDB_API_KEY: platform.adminKey },
      timeout: 60_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual([
      { ref: 'arith:v0', isDataset: true, name: 'arith', rows: v2Rows.slice(0, 2).map((row, index) => (index === 1 ? { ...row, expected: 'five' } : row)) },
      { ref: 'arith:v2', isDataset: true, name: 'arith', rows: v2Rows },
    ]);

    // The Datasets page's query lists it with its versions.
    const listed = await platform.graphql(`{ project(entity: "trellis", name: "dsets") { traceObjects(filter: { baseObjectClasses: ["Dataset"], latestOnly: true }) { nodes { objectId baseObjectClass versionIndex } } } }`);
    expect(listed.body.data.project.traceObjects.nodes).toEqual([{ objectId: 'arith', baseObjectClass: 'Dataset', versionIndex: 2 }]);
  }, 90_000);
});
