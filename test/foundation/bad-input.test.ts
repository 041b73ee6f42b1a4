import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../bench/inference-stand-in-upstream.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../support/platform.js';

/**
 * Input PostgreSQL cannot store (U+0000, lone UTF-16 surrogates), values nested thousands of levels deep, integers
 * beyond the int4 columns and non-object bodies are refused at the edge in every family's own 4xx shape, and
 * change nothing: no row anywhere, no project created, no usage record. (A black-box probe found 47 such inputs
 * answered 500, and one poisoned usage record stopping all usage accounting.)
 */
let platform: TestPlatform;
let upstream: StandInUpstream;

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'bad-input' });
  platform = await startTestPlatform({ env: { TRELLIS_INFERENCE_USAGE_FLUSH_MS: '50' } });
  const { body } = await platform.graphql('mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id } }', {
    d: { id: 'bad-input-model', backend: 'OPENAI_COMPATIBLE', deployments: [{ baseUrl: upstream.baseUrl }] },
  });
  expect(body.errors).toBeUndefined();
});

afterAll(async () => {
  await platform?.close();
  await upstream?.close();
});

// Raw JSON text: JSON.stringify would escape these the same way, but the probe's bodies are spelled out here.
const NUL = '"a\\u0000b"';
const LONE_SURROGATE = '"a\\ud800b"';
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const NOW = new Date().toISOString();
const P = 'trellis/bad-input';
const callStart = (fields: string) =>
  `{"start":{"project_id":"${P}","op_name":"op","started_at":"${NOW}","attributes":{},"inputs":{}${fields}}}`;
const chat = (fields: string) => `{"model":"bad-input-model","messages":[{"role":"user","content":"hi"}]${fields}}`;

type Family = 'tracing' | 'inference' | 'training' | 'platform';
interface Case {
  name: string;
  family: Family;
  method?: 'POST' | 'GET';
  path: string;
  body?: string;
  /** Where the offence is, as the family reports it (loc for 422 detail, param for OpenAI errors). */
  at: (string | number)[];
}

const cases: Case[] = [
  // NUL bytes
  { name: 'NUL in a call field', family: 'tracing', path: '/traces/call/start', body: callStart(`,"display_name":${NUL}`), at: ['body', 'start', 'display_name'] },
  { name: 'NUL in a call input value', family: 'tracing', path: '/traces/call/start', body: callStart(`,"otel_dump":{"k":[1,${NUL}]}`), at: ['body', 'start', 'otel_dump', 'k', 1] },
  { name: 'NUL in a key', family: 'tracing', path: '/traces/call/start', body: callStart(`,"summary_extra":{${NUL}:1}`), at: ['body', 'start', 'summary_extra', 'a\u0000b'] },
  { name: 'NUL in project_id', family: 'tracing', path: '/traces/calls/query', body: `{"project_id":"trellis/a\\u0000b"}`, at: ['body', 'project_id'] },
  { name: 'NUL in a filter', family: 'tracing', path: '/traces/calls/query', body: `{"project_id":"${P}","filter":{"op_names":[${NUL}]}}`, at: ['body', 'filter', 'op_names', 0] },
  { name: 'NUL in feedback', family: 'tracing', path: '/traces/feedback/create', body: `{"project_id":"${P}","weave_ref":"weave:///${P}/call/c1","feedback_type":"note","payload":{"note":${NUL}}}`, at: ['body', 'payload', 'note'] },
  { name: 'NUL in a path parameter', family: 'tracing', path: '/traces/v2/trellis/a%00b/call/start', body: `{"start":{"op_name":"op","started_at":"${NOW}","attributes":{},"inputs":{}}}`, at: ['path', 'project'] },
  { name: 'NUL in a chat parameter', family: 'inference', path: '/inference/v1/chat/completions', body: chat(`,"user":${NUL}`), at: ['user'] },
  { name: 'NUL in a training model name', family: 'training', path: '/training/v1/preview/models', body: `{"entity":null,"project":"bad-input","name":${NUL},"base_model":"trellis-tiny"}`, at: ['body', 'name'] },
  { name: 'NUL in a model id (path)', family: 'training', method: 'GET', path: '/training/v1/preview/models/a%00b/checkpoints', at: ['path', 'model_id'] },
  { name: 'NUL in an artifact path', family: 'platform', path: '/registry/v1/artifacts/trellis/bad-input/ds', body: `{"files":[{"path":${NUL},"content_base64":""}]}`, at: ['files', 0, 'path'] },
  // Lone surrogates
  { name: 'lone surrogate in call/start', family: 'tracing', path: '/traces/call/start', body: callStart(`,"op_name":${LONE_SURROGATE}`), at: ['body', 'start', 'op_name'] },
  { name: 'lone low surrogate in call inputs', family: 'tracing', path: '/traces/call/start', body: callStart(`,"attributes":{"x":"\\udc00"}`), at: ['body', 'start', 'attributes', 'x'] },
  { name: 'lone surrogate in a chat message', family: 'inference', path: '/inference/v1/chat/completions', body: `{"model":"bad-input-model","messages":[{"role":"user","content":${LONE_SURROGATE}}]}`, at: ['messages', 0, 'content'] },
  // Nesting
  { name: 'inputs nested 5,000 deep', family: 'tracing', path: '/traces/call/start', body: callStart(`,"inputs":{"k":${deepArray(5000)}}`), at: ['body', 'start', 'inputs', 'k'] },
  { name: 'object value nested 5,000 deep', family: 'tracing', path: '/traces/obj/create', body: `{"obj":{"project_id":"${P}","object_id":"o","val":${deepObject(5000)}}}`, at: ['body', 'obj', 'val'] },
  { name: 'chat body nested 100,000 deep', family: 'inference', path: '/inference/v1/chat/completions', body: chat(`,"metadata":${deepArray(100_000)}`), at: ['metadata'] },
  // Integers beyond the int4 columns
  { name: 'offset 2^31', family: 'tracing', path: '/traces/calls/query', body: `{"project_id":"${P}","offset":2147483648}`, at: ['body', 'offset'] },
  { name: 'offset 1e300', family: 'tracing', path: '/traces/feedback/query', body: `{"project_id":"${P}","offset":1e300}`, at: ['body', 'offset'] },
  { name: 'time_bucket_seconds 2^31', family: 'tracing', path: '/traces/feedback/aggregate', body: `{"project_id":"${P}","after_ms":0,"before_ms":10,"time_bucket_seconds":2147483648}`, at: ['body', 'time_bucket_seconds'] },
  { name: 'svc_run_step 2^31', family: 'tracing', path: '/traces/call/start', body: callStart(',"svc_run_step":2147483648'), at: ['body', 'start', 'svc_run_step'] },
  // Not an object
  { name: 'an array as the chat body', family: 'inference', path: '/inference/v1/chat/completions', body: '[]', at: [] },
  { name: 'a string as the chat body', family: 'inference', path: '/inference/v1/chat/completions', body: '"x"', at: [] },
  { name: 'a number as the chat body', family: 'inference', path: '/inference/v1/chat/completions', body: '1', at: [] },
];

/** The reported location; for nesting, the path down to the level past the limit, of which the case names the start. */
function at(location: (string | number)[], testCase: Case): (string | number)[] {
  if (!testCase.name.includes('nested')) return location;
  expect(location.length).toBeGreaterThan(200);
  return location.slice(0, testCase.at.length);
}

async function send(testCase: Case) {
  const authorization = testCase.family === 'tracing' ? `Basic ${Buffer.from(`api:${ADMIN_KEY}`).toString('base64')}` : `Bearer ${ADMIN_KEY}`;
  const response = await platform.fetch(testCase.path, {
    method: testCase.method ?? 'POST',
    headers: { authorization, ...(testCase.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: testCase.body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Rows of every table a bad request could have written to. */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = [
    'identity.projects',
    'tracing.calls',
    'tracing.objects',
    'tracing.feedback',
    'training.models',
    'registry.versions',
    'inference.usage_records',
    'platform_events.events',
  ];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const exists = await sql<{ found: string | null }>`select to_regclass(${table}) as found`.execute(platform.db.root);
    if (!exists.rows[0]?.found) continue;
    const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.raw(table)}`.execute(platform.db.root);
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

/** A GraphQL request from raw JSON text (JSON.stringify itself cannot write a value nested thousands deep). */
async function rawGraphql(body: string) {
  const response = await platform.fetch('/graphql', { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body });
  return { status: response.status, body: (await response.json()) as any };
}

describe('bad input is refused at the edge in each family\'s shape and changes nothing', () => {
  it.each(cases)('$name ($family)', async (testCase) => {
    const before = await rowCounts();
    const { status, body } = await send(testCase);
    switch (testCase.family) {
      case 'tracing':
      case 'training':
        // FastAPI/pydantic: 422 with the offence's loc.
        expect(status, JSON.stringify(body)).toBe(422);
        expect(at(body.detail[0].loc, testCase)).toEqual(testCase.at);
        expect(body.detail[0]).toMatchObject({ msg: expect.any(String), type: expect.any(String) });
        break;
      case 'inference':
        // OpenAI: 400 invalid_request_error naming the parameter.
        expect(status, JSON.stringify(body)).toBe(400);
        expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
        expect(body.error.param === null ? [] : at(body.error.param.split('.').map((part: string) => (/^\d+$/.test(part) ? Number(part) : part)), testCase)).toEqual(testCase.at);
        break;
      case 'platform':
        expect(status, JSON.stringify(body)).toBe(422);
        expect(body.error).toMatchObject({ type: 'invalid_request_error', param: testCase.at.join('.') });
        break;
    }
    // Usage records are written in the background: give a (wrongly) recorded request the time to show up.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await rowCounts()).toEqual(before);
  });

  it('GraphQL: NUL or a lone surrogate in variables or literals, and deep variables, are BAD_USER_INPUT errors', async () => {
    const before = await rowCounts();
    const mutation = 'mutation($r: JSONObject!) { openaiChatCompletion(body: $r) }';
    const message = (content: unknown) => ({ model: 'bad-input-model', messages: [{ role: 'user', content }] });
    const attempts = [
      await platform.graphql(mutation, { r: message('a\u0000b') }),
      await platform.graphql(mutation, { r: message('a\ud800b') }),
      await rawGraphql(`{"query":"${mutation}","variables":{"r":{"model":"bad-input-model","messages":[],"metadata":${deepArray(5000)}}}}`),
      await platform.graphql('mutation { openaiChatCompletion(body: {model: "bad-input-model", messages: [{role: "user", content: "a\\u0000b"}]}) }'),
      await platform.graphql('query($name: String!) { team(name: $name) { name } }', { name: 'a\u0000b' }),
    ];
    for (const { status, body } of attempts) {
      expect(status, JSON.stringify(body)).toBe(400);
      expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(body.data).toBeUndefined();
    }
    expect(attempts[0]!.body.errors[0].extensions.issues[0].loc).toEqual(['variables', 'r', 'messages', 0, 'content']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await rowCounts()).toEqual(before);
  });

  it('a request with a bad string leaves usage accounting working: the next request\'s usage is counted', async () => {
    // Before the fix these were answered 200 and their usage record failed every batch written after it.
    for (const user of [NUL, '"\\ud800"']) {
      const poison = await platform.fetch('/inference/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', 'openai-project': 'trellis/usage-after-poison' },
        body: chat(`,"user":${user}`),
      });
      expect(poison.status).toBeLessThan(500);
    }
    const response = await platform.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', 'openai-project': 'trellis/usage-after-poison' },
      body: chat(',"user":"ordinary user"'),
    });
    expect(response.status).toBe(200);
    const usage = async () => {
      const { body } = await platform.graphql('{ team(name: "trellis") { inferenceUsage(groupBy: [PROJECT, STATUS]) { project status requests } } }');
      return (body.data.team.inferenceUsage as { project: string; status: number; requests: number }[]).filter((bucket) => bucket.project === 'usage-after-poison' && bucket.status === 200);
    };
    let counted: { requests: number }[] = [];
    for (let attempt = 0; attempt < 60 && counted.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      counted = await usage();
    }
    expect(counted).toEqual([{ project: 'usage-after-poison', status: 200, requests: 1 }]);
  });
});
