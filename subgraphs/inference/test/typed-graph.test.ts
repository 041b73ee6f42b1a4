import { parse, subscribe } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../platform/logger.js';
import type { IdentityServices } from '../../identity/services.js';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import { encodeCursor } from '../../../platform/graphql/connection.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * The inference graph as a GraphQL client meets it: the typed chat completion (the REST request schema's rules,
 * reported at GraphQL paths, while REST keeps OpenAI's shapes), the typed model definition, usage records as a
 * connection, and the usage series a dashboard charts.
 */
let platform: TestPlatform;
let upstream: StandInUpstream;

const COMPLETE = `mutation($request: ChatCompletionRequestInput!, $project: String) {
  createChatCompletion(request: $request, project: $project) {
    id created model choices { index finishReason message { role content toolCalls { id } } } usage { promptTokens completionTokens totalTokens }
  }
}`;

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'typed' });
  platform = await startTestPlatform({ env: { TRELLIS_INFERENCE_USAGE_FLUSH_MS: '50' } });
  const { body } = await platform.graphql(
    'mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id backend deployments { label health } } }',
    { d: { id: 'typed-model', backend: 'OPENAI_COMPATIBLE', ownedBy: 'typed-team', deployments: [{ baseUrl: upstream.baseUrl, timeoutMs: 5000 }] } },
  );
  expect(body.errors).toBeUndefined();
  expect(body.data.registerInferenceModel).toEqual({ id: 'typed-model', backend: 'openai-compatible', deployments: [{ label: 'typed-model#0', health: 'HEALTHY' }] });
  for (const name of ['typed-chat', 'paged', 'series']) {
    await platform.graphql('mutation($n: String!) { ensureProject(entity: "trellis", name: $n) { name } }', { n: name });
  }
});

afterAll(async () => {
  await platform?.close();
  await upstream?.close();
});

async function records(entity: string, project: string, first: number | null, after: string | null = null) {
  return platform.graphql(
    `query($e: String!, $p: String!, $first: Int, $after: String) { project(entity: $e, name: $p) {
      inferenceUsageRecords(first: $first, after: $after) { nodes { id model status errorCode stream } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`,
    { e: entity, p: project, first, after },
  );
}

async function waitForRecords(project: string, count: number) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const { body } = await records('trellis', project, 100);
    const nodes = body.data?.project?.inferenceUsageRecords.nodes ?? [];
    if (nodes.length >= count || Date.now() > deadline) return nodes;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('typed chat completion', () => {
  it('takes a typed request, sends the wire request upstream, answers a typed completion and records usage', async () => {
    const request = {
      model: 'typed-model',
      messages: [
        { role: 'SYSTEM', content: 'be brief' },
        { role: 'USER', content: 'hello there' },
      ],
      temperature: 0.5,
      maxTokens: 16,
      extra: { backend_flag: true },
    };
    const { body } = await platform.graphql(COMPLETE, { request, project: 'trellis/typed-chat' });
    expect(body.errors).toBeUndefined();
    const completion = body.data.createChatCompletion;
    expect(completion).toMatchObject({ model: 'typed-model', choices: [{ index: 0, finishReason: 'stop', message: { role: 'assistant', toolCalls: [] } }] });
    expect(completion.choices[0].message.content).toEqual(expect.any(String));
    expect(completion.usage.totalTokens).toBe(completion.usage.promptTokens + completion.usage.completionTokens);
    // Upstream got the OpenAI wire request: snake_case, lower-case roles, the extra parameter at the top level.
    expect(upstream.requests.at(-1)!.body).toMatchObject({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ],
      temperature: 0.5,
      max_tokens: 16,
      backend_flag: true,
    });
    const nodes = await waitForRecords('typed-chat', 1);
    expect(nodes[0]).toMatchObject({ model: 'typed-model', status: 200, stream: false });
  });

  it("reports the REST schema's rules at GraphQL paths, and REST still answers OpenAI's shape", async () => {
    const invalid = await platform.graphql(COMPLETE, { request: { model: 'typed-model', messages: [{ role: 'USER', content: 'x' }], temperature: 5, topLogprobs: 50 } });
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
    const locations = new Set(invalid.body.errors[0].extensions.issues.map((issue: { loc: unknown[] }) => issue.loc.join('.')));
    expect([...locations]).toEqual(['request.temperature', 'request.topLogprobs']);
    const empty = await platform.graphql(COMPLETE, { request: { model: 'typed-model', messages: [] } });
    expect(empty.body.errors[0].extensions.issues[0].loc).toEqual(['request', 'messages']);
    // An unknown role is refused by GraphQL itself (the role is an enum).
    const role = await platform.graphql(COMPLETE, { request: { model: 'typed-model', messages: [{ role: 'wizard', content: 'x' }] } });
    expect(role.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');

    const rest = await platform.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'typed-model', messages: [{ role: 'user', content: 'x' }], temperature: 5 }),
    });
    expect(rest.status).toBe(400);
    expect(await rest.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'temperature' } });
  });

  it('streams typed chunks from the typed subscription (run on the subgraph, as the platform runs subscriptions)', async () => {
    const principal = await (platform.subgraphs.get('identity')!.services as IdentityServices).authenticator.authenticate(platform.adminKey);
    const context = { principal, requestId: 'typed-stream', logger: createLogger({ level: 'silent' }) };
    const result = await subscribe({
      schema: platform.subgraphs.get('inference')!.schema,
      document: parse(`subscription($request: ChatCompletionRequestInput!) {
        chatCompletionChunks(request: $request) { id model choices { index finishReason message { role content } } usage { totalTokens } } }`),
      variableValues: { request: { model: 'typed-model', messages: [{ role: 'USER', content: 'stream please' }], streamOptions: { includeUsage: true } } },
      contextValue: context,
    });
    expect(Symbol.asyncIterator in result).toBe(true);
    const chunks: any[] = [];
    for await (const event of result as AsyncIterable<any>) {
      expect(event.errors).toBeUndefined();
      chunks.push(event.data.chatCompletionChunks);
    }
    expect(chunks[0]).toMatchObject({ model: 'typed-model', choices: [{ index: 0, message: { role: 'assistant' } }] });
    expect(chunks.map((chunk) => chunk.choices[0]?.message.content ?? '').join('')).toBe('Hello from the stand-in upstream.');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { totalTokens: expect.any(Number) } });
    expect(upstream.requests.at(-1)!.body).toMatchObject({ stream: true, messages: [{ role: 'user', content: 'stream please' }] });
  });

  it('REST answers the upstream body verbatim (fields the typed view does not declare included)', async () => {
    const rest = await platform.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'typed-model', messages: [{ role: 'user', content: 'x' }] }),
    });
    const body = (await rest.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ object: 'chat.completion', model: 'typed-model' });
  });

  it('asks the upstream for usage on streams only, and drops stream options a client sent without a stream', async () => {
    const send = (body: Record<string, unknown>) =>
      platform.fetch('/inference/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'typed-model', messages: [{ role: 'user', content: 'x' }], ...body }),
      });
    expect((await send({ stream_options: { include_usage: true }, temperature: 0.3 })).status).toBe(200);
    const plain = upstream.requests.at(-1)!.body as Record<string, unknown>;
    expect(plain).toMatchObject({ stream: false, temperature: 0.3 });
    expect(plain).not.toHaveProperty('stream_options');
    await (await send({ stream: true })).text();
    expect(upstream.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });
});

describe('usage records connection', () => {
  beforeAll(async () => {
    const rows = Array.from({ length: 5 }, (_, i) => ({ created_at: new Date(Date.UTC(2026, 0, 1, 0, i)), entity: 'trellis', project: 'paged', model: `m${i}` }));
    await platform.db.root.insertInto('inference.usage_records' as never).values(rows.map((row) => ({ ...row, stream: false, status: 200, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, latency_ms: 1, attempts: 1 })) as never).execute();
  });

  it('pages newest first with opaque cursors', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const { body }: { body: any } = await records('trellis', 'paged', 2, after);
      expect(body.errors).toBeUndefined();
      const connection = body.data.project.inferenceUsageRecords;
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...connection.nodes.map((node: { model: string }) => node.model));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(['m4', 'm3', 'm2', 'm1', 'm0']);
  });

  it('refuses pages over the maximum and cursors of other lists', async () => {
    const tooMany = await records('trellis', 'paged', 1001);
    expect(tooMany.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['first'] });
    const foreign = await records('trellis', 'paged', 2, encodeCursor(['2026-01-01', 'x']));
    expect(foreign.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['after'] });
  });
});

describe('usage series', () => {
  beforeAll(async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 1, 1, 10, minute));
    const seed = [
      { created_at: at(1), model: 'a', status: 200, prompt_tokens: 3, completion_tokens: 4 },
      { created_at: at(2), model: 'a', status: 500, prompt_tokens: 0, completion_tokens: 0 },
      { created_at: at(3), model: 'b', status: 200, prompt_tokens: 1, completion_tokens: 1 },
      { created_at: at(16), model: 'a', status: 200, prompt_tokens: 5, completion_tokens: 6 },
      { created_at: at(70), model: 'a', status: 200, prompt_tokens: 9, completion_tokens: 9 },
    ];
    await platform.db.root
      .insertInto('inference.usage_records' as never)
      .values(seed.map((row) => ({ ...row, entity: 'trellis', project: 'series', stream: false, total_tokens: row.prompt_tokens + row.completion_tokens, latency_ms: 10, attempts: 1 })) as never)
      .execute();
  });

  const SERIES = `query($from: DateTimeISO!, $to: DateTimeISO!, $bucket: Int!, $groupBy: [InferenceUsageGroupBy!]) {
    project(entity: "trellis", name: "series") { inferenceUsageSeries(from: $from, to: $to, bucketSeconds: $bucket, groupBy: $groupBy) { period model requests errors promptTokens completionTokens } }
    team(name: "trellis") { inferenceUsageSeries(from: $from, to: $to, bucketSeconds: $bucket) { period model requests } }
  }`;

  it('buckets the seeded requests by time and model', async () => {
    const { body } = await platform.graphql(SERIES, { from: '2026-02-01T10:00:00Z', to: '2026-02-01T11:00:00Z', bucket: 900 });
    expect(body.errors).toBeUndefined();
    expect(body.data.project.inferenceUsageSeries).toEqual([
      { period: '2026-02-01T10:00:00.000Z', model: 'a', requests: 2, errors: 1, promptTokens: 3, completionTokens: 4 },
      { period: '2026-02-01T10:00:00.000Z', model: 'b', requests: 1, errors: 0, promptTokens: 1, completionTokens: 1 },
      { period: '2026-02-01T10:15:00.000Z', model: 'a', requests: 1, errors: 0, promptTokens: 5, completionTokens: 6 },
    ]);
    expect(body.data.team.inferenceUsageSeries).toEqual(expect.arrayContaining([{ period: '2026-02-01T10:15:00.000Z', model: 'a', requests: 1 }]));
    const total = await platform.graphql(SERIES, { from: '2026-02-01T10:00:00Z', to: '2026-02-01T12:00:00Z', bucket: 3600, groupBy: [] });
    expect(total.body.data.project.inferenceUsageSeries.map((b: { requests: number }) => b.requests)).toEqual([4, 1]);
  });

  it('refuses series with too many buckets', async () => {
    const { body } = await platform.graphql(SERIES, { from: '2020-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z', bucket: 60 });
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['bucketSeconds'] });
  });
});
