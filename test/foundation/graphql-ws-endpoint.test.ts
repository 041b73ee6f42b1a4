import { readFileSync } from 'node:fs';
import type { Client, ClientOptions } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletionChunks, graphqlWsClient, operationResults } from '../support/graphql-ws.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { subscriptionOwners } from '../../server/subgraph-subscriptions.js';
import { TEST_ENV } from '../../subgraphs/automations/test/helpers.js';

/**
 * `/graphql/ws` is one endpoint for the whole graph (server/http/graphql-ws-endpoint.ts): every subgraph's
 * subscriptions, routed to the subgraph that owns them, and queries and mutations through the gateway.
 */
let platform: TestPlatform;
const clients: Client[] = [];

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
}, 120_000);
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await platform?.close();
});

function connect(key = platform.adminKey, on?: ClientOptions['on']): Client {
  const client = graphqlWsClient(platform.url, key, { on });
  clients.push(client);
  return client;
}

const results = operationResults;

describe('/graphql/ws serves the whole graph', () => {
  it('streams chatCompletionChunks of the embedded model (inference subgraph)', async () => {
    const got = await results(connect(), chatCompletionChunks('Count to three.'));
    expect(got.every((result) => result.errors === undefined)).toBe(true);
    const chunks = got.map((result) => result.data.chatCompletionChunks);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0]).toMatchObject({ model: 'trellis-tiny' });
    const text = chunks.map((chunk) => chunk.choices[0]?.message?.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    expect(chunks.filter((chunk) => chunk.choices.length > 0).at(-1).choices[0].finishReason).toBeTruthy();
  });

  it('streams trainingChatCompletionChunks of a base model (training subgraph)', async () => {
    const got = await results(connect(), {
      query: 'subscription Train($request: ChatCompletionRequestInput!) { trainingChatCompletionChunks(request: $request) }',
      variables: { request: { model: 'trellis-tiny', messages: [{ role: 'USER', content: 'hi' }], maxTokens: 4, temperature: 0 } },
    });
    expect(got.every((result) => result.errors === undefined)).toBe(true);
    expect(got.length).toBeGreaterThan(1);
    expect(got[0].data.trainingChatCompletionChunks).toMatchObject({ object: 'chat.completion.chunk' });
  });

  it('knows which subgraph owns each Subscription field from the composed supergraph', () => {
    const owners = subscriptionOwners(readFileSync(new URL('../../schema/supergraph.graphql', import.meta.url), 'utf8'));
    expect(Object.fromEntries(owners)).toEqual({
      platformEvents: 'automations',
      deliveryUpdates: 'automations',
      chatCompletionChunks: 'inference',
      openaiChatCompletionChunks: 'inference',
      openaiResponseEvents: 'inference',
      trainingChatCompletionChunks: 'training',
    });
  });

  it('runs a query spanning subgraphs, and mutations, through the gateway', async () => {
    const client = connect();
    const [query] = await results(client, {
      query: '{ viewer { username } project(entity: "trellis", name: "default") { fullName callCount runCount trainingModelCount } team(name: "trellis") { webhookCount } }',
    });
    expect(query).toEqual({
      data: {
        viewer: { username: 'admin' },
        // The streamed completions above are traced into this project in the background: their count varies.
        project: { fullName: 'trellis/default', callCount: expect.any(Number), runCount: 0, trainingModelCount: 0 },
        team: { webhookCount: 0 },
      },
    });
    const [mutation] = await results(client, { query: 'mutation { createTeam(name: "ws-team") { name } }' });
    expect(mutation).toEqual({ data: { createTeam: { name: 'ws-team' } } });
    // The gateway's own error conventions, unchanged.
    const [conflict] = await results(client, { query: 'mutation { createTeam(name: "ws-team") { name } }' });
    expect(conflict.errors[0].extensions).toEqual({ code: 'CONFLICT', status: 409 });
  });

  it('judges documents against the whole graph, and variables of a subgraph\'s subscription, with the public codes', async () => {
    const client = connect();
    const [unknown] = await results(client, { query: 'subscription { chatCompletionChunk(request: {}) }' });
    expect(unknown.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', status: 400 });
    const [unknownField] = await results(client, { query: '{ viewer { shoeSize } }' });
    expect(unknownField.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const [variables] = await results(client, { ...chatCompletionChunks('hi'), variables: { request: 'not an object' } });
    expect(variables.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['$request'] });
  });

  it('errors of a subgraph\'s subscription carry its catalogue codes', async () => {
    const [missing] = await results(connect(), chatCompletionChunks('hi', { model: 'no-such-model' }));
    expect(missing.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('closes a connection with 4403 when its key is revoked, ending subscriptions of every subgraph on it', async () => {
    const { key } = await platform.createUser('ws-chat-revoked', { trellis: 'MEMBER' });
    let closed!: (event: { code: number }) => void;
    const closing = new Promise<{ code: number }>((resolve) => (closed = resolve));
    const client = connect(key, { closed: (event) => closed(event as { code: number }) });
    const ended: string[] = [];
    let firstChunk!: () => void;
    const chunking = new Promise<void>((resolve) => (firstChunk = resolve));
    const watch = (name: string, request: { query: string; variables?: Record<string, unknown> }, onNext = () => undefined as void) =>
      client.subscribe(request, { next: onNext, error: () => ended.push(name), complete: () => ended.push(`${name} completed`) });
    watch('events', { query: 'subscription { platformEvents(entity: "trellis") { type } }' });
    watch('chat', chatCompletionChunks('Write a long story about a lighthouse.', { maxTokens: 4096 }), firstChunk);
    await chunking;
    const { viewer } = (await platform.graphql('{ viewer { apiKeys { id } } }', undefined, key)).body.data;
    await platform.graphql('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: viewer.apiKeys[0].id }, key);
    expect(await Promise.race([closing, new Promise((_, reject) => setTimeout(() => reject(new Error('not closed')), 5_000))])).toMatchObject({ code: 4403 });
    // Neither subscription completed normally: the connection ended them.
    expect(ended).not.toContain('events completed');
  });
});
