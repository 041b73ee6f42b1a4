import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { compileCallSearch } from '../call/call-search.js';
import { callFields } from '../call/call-fields.js';
import { compileCondition } from '../query/query-sql.js';
import { parseQuery } from '../query/query-expression.js';
import { callStore } from '../call/call.store.js';
import type { TracingDatabase } from '../db/database.js';
import { traces } from './helpers.js';

/**
 * The traces list's search (Project.calls / callCount `search`, POST /traces/calls/export): full-text words of the
 * inputs and outputs through the GIN index on tracing.calls.search_vector, a start window, attribute values and
 * feedback; bad input answered with the family's error shape, changing nothing.
 */
let platform: TestPlatform;
const P = 'trellis/search';
const BULK = 'trellis/search-bulk';
const HUGE = 'trellis/search-huge';
const t0 = Date.parse('2026-03-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

const CALLS = `query($project: String!, $search: CallSearch, $filter: CallFilter, $first: Int = 100) {
  project(entity: "trellis", name: $project) {
    callCount(search: $search, filter: $filter)
    calls(search: $search, filter: $filter, first: $first) { nodes { id inputPreview outputPreview feedbackSummary { reactions { emoji count } notes scores { scorer value } } } }
  }
}`;

async function ids(search: Record<string, unknown>, project = 'search'): Promise<string[]> {
  const { status, body } = await platform.graphql(CALLS, { project, search });
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  const found = body.data.project.calls.nodes.map((node: { id: string }) => node.id);
  expect(body.data.project.callCount).toBe(found.length);
  return found;
}

beforeAll(async () => {
  platform = await startTestPlatform();
  const start = (id: string, fields: Record<string, unknown>) => ({ mode: 'start', req: { start: { project_id: P, id, attributes: {}, inputs: {}, ...fields } } });
  const end = (id: string, fields: Record<string, unknown>) => ({ mode: 'end', req: { end: { project_id: P, id, summary: {}, ...fields } } });
  const res = await traces(platform, '/call/upsert_batch', {
    batch: [
      start('chat', {
        op_name: 'weave:///trellis/search/op/chat:v1',
        started_at: at(0),
        attributes: { env: 'prod', weave: { client_version: '0.51' } },
        inputs: { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'What colour is the sky over Reykjavik?' }] },
      }),
      end('chat', { ended_at: at(900), output: { choices: [{ message: { role: 'assistant', content: 'Mostly grey, with a luminous aurora in winter.' } }] } }),
      start('sum', { op_name: 'summarize', started_at: at(60_000), attributes: { env: 'dev', retries: 3 }, inputs: { document: 'Quarterly report of the turbine factory', pages: 12 } }),
      end('sum', { ended_at: at(61_000), output: 'The turbines shipped late; margins fell.' }),
      start('running', { op_name: 'embed', started_at: at(120_000), attributes: { env: 'prod' }, inputs: { text: 'aurora borealis photo' } }),
    ],
  });
  expect(res.status).toBe(200);
  // Feedback: two 👍 and a note on chat, a scorer's result on sum.
  for (const [callId, feedbackType, payload] of [
    ['chat', 'wandb.reaction.1', { emoji: '👍' }],
    ['chat', 'wandb.reaction.1', { emoji: '👍' }],
    ['chat', 'wandb.note.1', { note: 'check the colour' }],
    ['sum', 'wandb.runnable.Faithfulness', { output: { faithful: true, score: 0.75 } }],
  ] as const) {
    const created = await traces(platform, '/feedback/create', { project_id: P, weave_ref: `weave:///${P}/call/${callId}`, feedback_type: feedbackType, payload });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  }
});
afterAll(async () => {
  await platform?.close();
});

describe('full-text search over inputs and outputs', () => {
  it('finds a word from an output, and from inputs at any depth, in any case', async () => {
    expect(await ids({ text: 'luminous' })).toEqual(['chat']);
    expect(await ids({ text: 'REYKJAVIK' })).toEqual(['chat']);
    expect(await ids({ text: 'turbines' })).toEqual(['sum']);
    // A number value is text too; "aurora" is in one output and one input.
    expect(await ids({ text: '12' })).toEqual(['sum']);
    expect(await ids({ text: 'aurora' })).toEqual(['chat', 'running']);
  });

  it('needs every word, understands "phrases", -exclusions and or; JSON keys and partial words do not match', async () => {
    expect(await ids({ text: 'aurora winter' })).toEqual(['chat']);
    expect(await ids({ text: 'aurora -winter' })).toEqual(['running']);
    expect(await ids({ text: '"aurora borealis"' })).toEqual(['running']);
    expect(await ids({ text: 'turbine or luminous' })).toEqual(['chat', 'sum']);
    expect(await ids({ text: 'content' })).toEqual([]);
    expect(await ids({ text: 'lumin' })).toEqual([]);
  });

  it('is maintained on write: an end that adds an output makes its words findable', async () => {
    expect(await ids({ text: 'vectorised' })).toEqual([]);
    const ended = await traces(platform, '/call/end', { end: { project_id: P, id: 'running', ended_at: at(121_000), output: { note: 'Vectorised 1 image' }, summary: {} } });
    expect(ended.status).toBe(200);
    expect(await ids({ text: 'vectorised' })).toEqual(['running']);
  });

  it('stores a call whose text is too large for one tsvector, searchable by the beginning of its text', async () => {
    // 150,000 distinct words (≈ 1.1 MB): indexed whole, their tsvector would pass PostgreSQL's 1 MB limit and fail the write.
    const words = Array.from({ length: 150_000 }, (_, i) => `w${i}`).join(' ');
    const started = await traces(platform, '/call/start', { start: { project_id: HUGE, id: 'huge', op_name: 'dump', started_at: at(300_000), attributes: {}, inputs: { note: 'bulk export' } } });
    expect(started.status).toBe(200);
    const ended = await traces(platform, '/call/end', { end: { project_id: HUGE, id: 'huge', ended_at: at(301_000), output: words, summary: {} } });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    expect(await ids({ text: 'w1000' }, 'search-huge')).toEqual(['huge']);
    expect(await ids({ text: 'export' }, 'search-huge')).toEqual(['huge']);
    // Past the first 50,000 characters of its text, a call is not indexed.
    expect(await ids({ text: 'w149999' }, 'search-huge')).toEqual([]);
  });

  it('is served by the GIN index on search_vector, not by a scan of the calls', async () => {
    // Enough calls that a scan would cost the planner more than the index (a handful of rows are cheaper to scan).
    const db = platform.db.root;
    // The project exists once a call is written to it through the API; the rest are inserted in one statement.
    expect((await traces(platform, '/call/start', { start: { project_id: BULK, id: 'bulk-0', op_name: 'predict', started_at: at(0), attributes: {}, inputs: {} } })).status).toBe(200);
    await sql`
      insert into tracing.calls (project_id, id, trace_id, op_name, started_at, attributes, inputs, output, summary, ended_at)
      select ${BULK}, 'bulk-' || n, 'bulk-' || n, 'predict', ${at(0)}::timestamptz + n * interval '1 second', '{}',
        jsonb_build_object('prompt', 'question number ' || n), jsonb_build_object('answer', 'answer number ' || n || case when n = 7777 then ' zanzibar' else '' end),
        '{}', ${at(0)}::timestamptz + n * interval '1 second' + interval '20 ms'
      from generate_series(1, 20000) as n`.execute(db);
    // As autovacuum would: the GIN index's pending entries merged, statistics gathered.
    await sql`vacuum analyze tracing.calls`.execute(db);
    const scans = async () =>
      Number((await sql<{ n: string }>`select idx_scan as n from pg_stat_user_indexes where schemaname = 'tracing' and indexrelname = 'calls_search'`.execute(db)).rows[0]!.n);
    const before = await scans();
    expect(await ids({ text: 'zanzibar' }, 'search-bulk')).toEqual(['bulk-7777']);
    // Index statistics reach other sessions when the serving connection flushes them (an idle one within 10 s).
    await expect.poll(scans, { timeout: 15_000, interval: 250 }).toBeGreaterThan(before);

    // The plan of the statement the store runs for the traces list's first page (captured, then explained).
    const statements: CompiledQuery[] = [];
    const capturing = new Kysely<TracingDatabase>({ dialect: new PostgresDialect({ pool: platform.db.pool }), log: (event) => void statements.push(event.query) }).withSchema('tracing');
    const searched = compileCallSearch({ text: 'zanzibar' })!;
    const rows = await callStore.query(capturing, BULK, { filter: {}, condition: searched.condition, fullText: searched.fullText }, [{ field: 'started_at', direction: 'desc' }], 26, 0);
    expect(rows.map((row) => row.id)).toEqual(['bulk-7777']);
    const [statement] = statements;
    const { rows: plan } = await platform.db.pool.query(`explain ${statement!.sql}`, [...statement!.parameters]);
    const text = plan.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    expect(text).toContain('Bitmap Index Scan on calls_search');
    expect(text).not.toMatch(/Seq Scan|calls_started/);
  });
});

describe("the traces list's order on many calls", () => {
  /** The plan of the store's statement for a page of the bulk project's calls (seeded by the GIN test above). */
  async function planOfPage(sort: { field: string; direction: 'asc' | 'desc' }, filter: Record<string, unknown> = {}): Promise<string> {
    const statements: CompiledQuery[] = [];
    const capturing = new Kysely<TracingDatabase>({ dialect: new PostgresDialect({ pool: platform.db.pool }), log: (event) => void statements.push(event.query) }).withSchema('tracing');
    await callStore.query(capturing, BULK, { filter }, [sort], 51, 0);
    const { rows } = await platform.db.pool.query(`explain ${statements[0]!.sql}`, [...statements[0]!.parameters]);
    return rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
  }

  it('reads newest first, oldest first and slowest first from an index, without sorting every call', async () => {
    for (const [sort, index] of [
      [{ field: 'started_at', direction: 'desc' }, 'calls_started_desc'],
      [{ field: 'started_at', direction: 'asc' }, 'calls_started'],
      [{ field: 'summary.weave.latency_ms', direction: 'desc' }, 'calls_latency_desc'],
    ] as const) {
      for (const filter of [{}, { traceRootsOnly: true }]) {
        const plan = await planOfPage(sort, filter);
        expect(plan, `${JSON.stringify(sort)} ${JSON.stringify(filter)}`).toMatch(new RegExp(`Index Scan( Backward)? using ${index} on calls`));
        expect(plan, `${JSON.stringify(sort)} ${JSON.stringify(filter)}`).not.toMatch(/Sort|Seq Scan/);
      }
    }
  });
});

describe("the traces list's status filter on many calls", () => {
  it("reads the failed calls from the partial index calls_errors (status = 'error' is exception is not null), and finds the same calls", async () => {
    const db = platform.db.root;
    await sql`update tracing.calls set exception = 'boom ' || id where project_id = ${BULK} and id in ('bulk-10', 'bulk-500', 'bulk-19999')`.execute(db);
    await sql`analyze tracing.calls`.execute(db);
    const statements: CompiledQuery[] = [];
    const capturing = new Kysely<TracingDatabase>({ dialect: new PostgresDialect({ pool: platform.db.pool }), log: (event) => void statements.push(event.query) }).withSchema('tracing');
    const query = { $expr: { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'error' }] } };
    const condition = compileCondition(parseQuery(query, ['body', 'query'])!, callFields);
    const rows = await callStore.query(capturing, BULK, { filter: {}, condition }, [{ field: 'started_at', direction: 'desc' }], 51, 0);
    expect(rows.map((row) => row.id)).toEqual(['bulk-19999', 'bulk-500', 'bulk-10']);
    const { rows: plan } = await platform.db.pool.query(`explain ${statements[0]!.sql}`, [...statements[0]!.parameters]);
    const text = plan.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    expect(text).toContain('using calls_errors on calls');
    expect(text).not.toMatch(/Seq Scan/);
    // Other statuses keep their meaning (derived, read as before).
    const running = compileCondition(parseQuery({ $expr: { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'success' }] } }, ['body', 'query'])!, callFields);
    const succeeded = await callStore.query(capturing, BULK, { filter: {}, condition: running }, [{ field: 'started_at', direction: 'desc' }], 3, 0);
    expect(succeeded.map((row) => row.id)).toEqual(['bulk-20000', 'bulk-19998', 'bulk-19997']);
  });
});

describe('a bounded count (the list header over many calls)', () => {
  const COUNT = `query($atMost: Int, $search: CallSearch) { project(entity: "trellis", name: "search-bulk") { callCount(atMost: $atMost, search: $search) } }`;
  const count = async (variables: Record<string, unknown>) => platform.graphql(COUNT, variables);

  it('stops after atMost + 1 calls, so more than atMost shows as atMost + 1; fewer are counted exactly', async () => {
    // The bulk project (seeded above) has 20,001 calls; "number" is in 20,000 of them.
    expect((await count({})).body.data.project.callCount).toBe(20_001);
    expect((await count({ atMost: 10_000 })).body.data.project.callCount).toBe(10_001);
    expect((await count({ atMost: 10_000, search: { text: 'number' } })).body.data.project.callCount).toBe(10_001);
    expect((await count({ atMost: 10_000, search: { text: 'zanzibar' } })).body.data.project.callCount).toBe(1);
    expect((await count({ atMost: 1_000_000 })).body.data.project.callCount).toBe(20_001);
  });

  it('refuses a bound outside 1 to 1,000,000 as BAD_USER_INPUT at atMost', async () => {
    for (const atMost of [0, -5, 1_000_001]) {
      const { body } = await count({ atMost });
      expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(body.errors[0].extensions.issues).toEqual([{ loc: ['atMost'], msg: 'atMost must be a whole number from 1 to 1,000,000', type: 'value_error' }]);
    }
  });
});

describe('window, attributes and feedback', () => {
  it('narrows by the start window (after inclusive, before exclusive)', async () => {
    expect(await ids({ startedAfter: at(60_000) })).toEqual(['sum', 'running']);
    expect(await ids({ startedBefore: at(60_000) })).toEqual(['chat']);
    expect(await ids({ startedAfter: at(1), startedBefore: at(120_000) })).toEqual(['sum']);
  });

  it('narrows by attribute values (dotted keys; numbers compare as their text), all of them', async () => {
    expect(await ids({ attributes: [{ key: 'env', value: 'prod' }] })).toEqual(['chat', 'running']);
    expect(await ids({ attributes: [{ key: 'weave.client_version', value: '0.51' }] })).toEqual(['chat']);
    expect(await ids({ attributes: [{ key: 'retries', value: '3' }] })).toEqual(['sum']);
    expect(await ids({ attributes: [{ key: 'env', value: 'prod' }, { key: 'weave.client_version', value: '0.51' }] })).toEqual(['chat']);
    expect(await ids({ attributes: [{ key: 'env', value: 'staging' }] })).toEqual([]);
  });

  it('narrows by feedback: a reaction (one emoji or any), a score of a scorer (one or any)', async () => {
    expect(await ids({ reaction: '👍' })).toEqual(['chat']);
    expect(await ids({ reaction: '👎' })).toEqual([]);
    expect(await ids({ reaction: '*' })).toEqual(['chat']);
    expect(await ids({ scorer: 'Faithfulness' })).toEqual(['sum']);
    expect(await ids({ scorer: '*' })).toEqual(['sum']);
    expect(await ids({ scorer: '*', text: 'luminous' })).toEqual([]);
  });

  it('gives each call its previews and feedback in brief', async () => {
    const { body } = await platform.graphql(CALLS, { project: 'search', search: { startedBefore: at(60_001) } });
    const [chat, sum] = body.data.project.calls.nodes;
    expect(chat.inputPreview).toBe('What colour is the sky over Reykjavik?');
    expect(chat.outputPreview).toBe('Mostly grey, with a luminous aurora in winter.');
    expect(chat.feedbackSummary).toEqual({ reactions: [{ emoji: '👍', count: 2 }], notes: 1, scores: [] });
    // jsonb keeps keys shortest first, so the values come in that order.
    expect(sum.inputPreview).toBe('12 · Quarterly report of the turbine factory');
    expect(sum.feedbackSummary.scores).toEqual([{ scorer: 'Faithfulness', value: { faithful: true, score: 0.75 } }]);
  });
});

describe('bad input', () => {
  it('is a BAD_USER_INPUT at the search field with a clear message, and nothing is read', async () => {
    const cases: [Record<string, unknown>, (string | number)[], RegExp][] = [
      [{ text: '  -- ' }, ['search', 'text'], /at least one letter or digit/],
      [{ text: '' }, ['search', 'text'], /fewer than 1 character|at least 1|shorter/i],
      [{ startedAfter: 'yesterday' }, ['search', 'startedAfter'], /datetime|pattern|match/i],
      [{ startedAfter: at(10), startedBefore: at(5) }, ['search', 'startedBefore'], /later than started_after/],
      [{ attributes: [{ key: 'a..b', value: 'x' }] }, ['search', 'attributes', 0, 'key'], /empty path segment/],
    ];
    for (const [search, loc, message] of cases) {
      const { status, body } = await platform.graphql(CALLS, { project: 'search', search });
      expect(status, JSON.stringify(search)).toBe(200);
      expect(body.data?.project ?? null, JSON.stringify(search)).toBeNull();
      const [error] = body.errors;
      expect(error.extensions.code, JSON.stringify(body.errors)).toBe('BAD_USER_INPUT');
      const issue = error.extensions.issues.find((candidate: { loc: unknown }) => JSON.stringify(candidate.loc) === JSON.stringify(loc));
      expect(issue, JSON.stringify(body.errors)).toBeDefined();
      expect(issue.msg).toMatch(message);
    }
  });

  it('is a 422 with the wire location on the export route, before anything is streamed', async () => {
    const res = await traces(platform, '/calls/export', { project_id: P, format: 'csv', search: { text: '--', started_after: at(9), started_before: at(1) } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'search', 'text'], msg: 'Search text needs at least one letter or digit' }),
        expect.objectContaining({ loc: ['body', 'search', 'started_before'], msg: 'started_before must be later than started_after' }),
      ]),
    );
    const unknownFormat = await traces(platform, '/calls/export', { project_id: P, format: 'xlsx' });
    expect(unknownFormat.status).toBe(422);
    expect(unknownFormat.body.detail[0].loc).toEqual(['body', 'format']);
  });
});

describe('export', () => {
  it('streams the selected calls as JSON lines in the calls/stream_query shape', async () => {
    const res = await platform.fetch('/traces/calls/export', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}` },
      body: JSON.stringify({ project_id: P, format: 'jsonl', search: { attributes: [{ key: 'env', value: 'prod' }] }, sort_by: [{ field: 'started_at', direction: 'desc' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/jsonl');
    const lines = (await res.text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((call) => call.id)).toEqual(['running', 'chat']);
    expect(lines[1]).toMatchObject({ project_id: P, op_name: 'weave:///trellis/search/op/chat:v1', attributes: { env: 'prod' }, summary: { weave: { status: 'success', latency_ms: 900 } } });
  });

  it('streams CSV: a header, then one quoted, escaped row per call', async () => {
    const res = await platform.fetch('/traces/calls/export', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}` },
      body: JSON.stringify({ project_id: P, format: 'csv', search: { text: 'turbines' } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const [header, row, rest] = (await res.text()).split('\r\n');
    expect(header).toBe('id,trace_id,parent_id,op_name,display_name,status,started_at,ended_at,latency_ms,exception,wb_user_id,wb_run_id,attributes,inputs,output,summary');
    expect(row).toMatch(/^sum,[^,]+,,summarize,,success,2026-03-01T00:01:00.000Z,2026-03-01T00:01:01.000Z,1000,,/);
    expect(row).toContain('"{""env"":""dev"",""retries"":3}"');
    expect(row).toContain(',The turbines shipped late; margins fell.,');
    expect(rest).toBe('');
  });
});
