import 'reflect-metadata';
import { createServer } from 'node:net';
import { GraphQLError } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { Query, Resolver } from 'type-graphql';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_ERROR_CODES, PUBLIC_EXTENSION_KEYS } from '../../platform/error-catalogue.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import { SUBGRAPHS } from '../../subgraphs/index.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

/**
 * Every error a GraphQL client can get carries a code of the catalogue (platform/error-catalogue.ts) and only
 * public extensions: through /graphql (the gateway over the subgraphs of this process) and on graphql-ws
 * (/graphql/ws). test/e2e/topology/distributed.test.ts checks the same through subgraph services.
 */

/** A subgraph with bugs, for what no real subgraph does on purpose. */
@Resolver()
class FaultyResolver {
  @Query(() => String)
  faultyBug(): string {
    throw new Error('connect ECONNREFUSED postgres://trellis:hunter2@db/trellis');
  }

  @Query(() => String)
  faultyCode(): string {
    throw new GraphQLError('a code nobody catalogued', { extensions: { code: 'I_AM_A_TEAPOT', detail: 'internal' } });
  }
}
const faultySubgraph = defineSubgraph({ name: 'faulty', migrations: {}, resolvers: [FaultyResolver], createServices: () => ({}) });

let platform: TestPlatform;
let strangerKey: string;
let closedPort: number;

beforeAll(async () => {
  // One chat completion per key and minute: the second one is RATE_LIMITED.
  platform = await startTestPlatform({ workers: false, subgraphs: [...SUBGRAPHS, faultySubgraph], env: { TRELLIS_INFERENCE_KEY_RPM: '1' } });
  strangerKey = (await platform.createUser('stranger')).key;
  closedPort = await unusedPort();
});
afterAll(() => platform?.close());

/** Asserts what every error must be, and returns the first one. */
function firstError(body: { errors?: { message: string; extensions?: Record<string, unknown> }[] }) {
  expect(body.errors?.length).toBeGreaterThan(0);
  for (const error of body.errors!) {
    expect(Object.keys(PUBLIC_ERROR_CODES)).toContain(error.extensions?.code);
    for (const key of Object.keys(error.extensions ?? {})) expect(PUBLIC_EXTENSION_KEYS).toContain(key);
  }
  return body.errors![0]!;
}

describe('errors on /graphql carry catalogue codes', () => {
  it('UNAUTHENTICATED: no key on a protected field (HTTP 200), an unknown key (HTTP 401)', async () => {
    const anonymous = await platform.graphql('{ team(name: "trellis") { name } }', undefined, null);
    expect(firstError(anonymous.body).extensions).toEqual({ code: 'UNAUTHENTICATED', status: 401 });
    const badKey = await platform.graphql('{ viewer { username } }', undefined, 'trl_not_a_key');
    expect(badKey.status).toBe(401);
    expect(firstError(badKey.body).extensions).toEqual({ code: 'UNAUTHENTICATED', status: 401 });
  });

  it('FORBIDDEN: a project of a team the caller is not in', async () => {
    const { body } = await platform.graphql('{ project(entity: "trellis", name: "default") { callCount } }', undefined, strangerKey);
    expect(firstError(body).extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
  });

  it('NOT_FOUND: a missing object', async () => {
    const { body } = await platform.graphql('{ trainingModel(id: "no-such-model") { id } }');
    expect(firstError(body).extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('BAD_USER_INPUT: a payload argument that fails validation, with the argument path and every issue', async () => {
    const start = { projectId: 'no-slash', opName: '', startedAt: new Date().toISOString(), attributes: {}, inputs: {} };
    const tracing = await platform.graphql('mutation($input: CallStartInput!) { startCall(input: $input) { id } }', { input: start });
    const error = firstError(tracing.body);
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', status: 422, field: ['input', 'projectId'] });
    // `field` is where the first issue is; `issues` (pydantic's {loc, msg, type}, as the REST routes answer) has all.
    expect(error.extensions!.issues).toContainEqual(expect.objectContaining({ loc: ['input', 'opName'], type: 'string_too_short' }));

    // The payload of REST's body arrives as the argument `input`: the path says so.
    const training = await platform.graphql('mutation { createTrainingModel(input: {name: "m", project: "default"}) { id } }');
    expect(firstError(training.body).extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', field: ['input', 'base_model'] });

    // A plain argument.
    const alias = await platform.graphql('mutation { addArtifactAlias(versionId: "x", alias: "bad alias!") { id } }');
    expect(firstError(alias.body).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['alias'] });

    // A `param` inside an input object argument.
    const webhook = await platform.graphql('mutation { createWebhook(input: {team: "trellis", name: "w", endpointUrl: "not a url"}) { id } }');
    expect(firstError(webhook.body).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['input', 'endpointUrl'] });
  });

  it('BAD_USER_INPUT: variables graphql-js refuses before anything runs, with the variable path', async () => {
    const missing = await platform.graphql('query($id: ID!) { trainingModel(id: $id) { id } }', {});
    expect(firstError(missing.body).extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400, field: ['$id'] });
    const nested = await platform.graphql('mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { id } }', {
      input: { team: 'trellis', name: 7, endpointUrl: 'http://127.0.0.1/' },
    });
    expect(firstError(nested.body).extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400, field: ['$input', 'name'] });
  });

  it('BAD_USER_INPUT with HTTP 400, not a 500: requests the gateway cannot run', async () => {
    const post = (body: string) =>
      platform.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}` }, body });
    for (const body of [
      '{}',
      JSON.stringify({ query: 'query A { viewer { username } }', operationName: 'B' }),
      JSON.stringify({ query: 'query A { viewer { username } } query B { viewer { id } }' }),
      JSON.stringify({ query: 'subscription { platformEvents { id } }' }),
    ]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(firstError((await response.json()) as any).extensions).toMatchObject({ code: 'BAD_USER_INPUT', status: 400 });
    }
  });

  it('CONFLICT: creating a team twice', async () => {
    expect((await platform.graphql('mutation { createTeam(name: "twice") { name } }')).body.errors).toBeUndefined();
    const { body } = await platform.graphql('mutation { createTeam(name: "twice") { name } }');
    expect(firstError(body).extensions).toEqual({ code: 'CONFLICT', status: 409 });
  });

  it('UPSTREAM_ERROR for a model server that cannot be reached, then RATE_LIMITED over the per-key limit', async () => {
    const registered = await platform.graphql('mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id } }', {
      d: { id: 'unreachable', backend: 'OPENAI_COMPATIBLE', deployments: [{ baseUrl: `http://127.0.0.1:${closedPort}/v1` }] },
    });
    expect(registered.body.errors).toBeUndefined();
    const chat = 'mutation($r: ChatCompletionRequestInput!) { createChatCompletion(request: $r) { id } }';
    const request = { model: 'unreachable', messages: [{ role: 'USER', content: 'hi' }] };
    const failed = await platform.graphql(chat, { r: request });
    expect(firstError(failed.body).extensions).toMatchObject({ code: 'UPSTREAM_ERROR', status: 502 });
    const limited = await platform.graphql(chat, { r: request });
    expect(firstError(limited.body).extensions).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterSeconds: expect.any(Number) });
  });

  it('INTERNAL: a bug, or a code outside the catalogue, is masked', async () => {
    for (const field of ['faultyBug', 'faultyCode']) {
      const { body } = await platform.graphql(`{ ${field} }`);
      const error = firstError(body);
      expect(error).toMatchObject({ message: 'Internal server error', path: [field], extensions: { code: 'INTERNAL', status: 500 } });
      expect(JSON.stringify(body)).not.toMatch(/hunter2|nobody catalogued|detail/);
    }
  });

  it('GRAPHQL_PARSE_FAILED and GRAPHQL_VALIDATION_FAILED for documents that cannot run (Apollo\'s codes, HTTP 400)', async () => {
    const parse = await platform.graphql('{ viewer {');
    expect(parse.status).toBe(400);
    expect(firstError(parse.body).extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED', status: 400 });
    const unknownField = await platform.graphql('{ viewer { shoeSize } }');
    expect(unknownField.status).toBe(400);
    expect(firstError(unknownField.body).extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', status: 400 });
  });

  it('PERSISTED_QUERY_NOT_FOUND: the automatic persisted queries protocol', async () => {
    const response = await platform.fetch(`/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } }))}`, {
      headers: { authorization: `Bearer ${platform.adminKey}`, 'apollo-require-preflight': 'true' },
    });
    expect(firstError((await response.json()) as any).extensions).toMatchObject({ code: 'PERSISTED_QUERY_NOT_FOUND' });
  });
});

describe('errors on graphql-ws (/graphql/ws) carry catalogue codes', () => {
  let client: Client;
  beforeAll(() => {
    client = createClient({
      url: `${platform.url.replace('http', 'ws')}/graphql/ws`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${strangerKey}` },
      retryAttempts: 0,
      lazy: true,
    });
  });
  afterAll(() => client?.dispose());

  /** The errors the subscription ends with (a `next` result's or an `error` message's). */
  const errorsOf = (query: string, variables?: Record<string, unknown>) =>
    new Promise<{ message: string; extensions?: Record<string, unknown> }[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no error within 5 s')), 5_000);
      const dispose = client.subscribe(
        { query, variables },
        {
          next: (result) => {
            if (!result.errors) return;
            clearTimeout(timer);
            dispose();
            resolve(result.errors as never);
          },
          error: (error) => {
            clearTimeout(timer);
            if (Array.isArray(error)) resolve(error);
            else reject(error instanceof Error ? error : new Error(`connection failed: ${JSON.stringify(error)}`));
          },
          complete: () => undefined,
        },
      );
    });

  it('FORBIDDEN, BAD_USER_INPUT with the argument or variable path', async () => {
    expect(firstError({ errors: await errorsOf('subscription { deliveryUpdates(team: "trellis") { id } }') }).extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
    expect(firstError({ errors: await errorsOf('subscription { platformEvents(after: "not-a-cursor") { id } }') }).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'BAD_REQUEST',
      status: 400,
      param: 'after',
      field: ['after'],
    });
    expect(firstError({ errors: await errorsOf('subscription($team: String!) { deliveryUpdates(team: $team) { id } }') }).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: ['$team'],
    });
  });

  it('GRAPHQL_PARSE_FAILED and GRAPHQL_VALIDATION_FAILED, and the connection stays usable', async () => {
    expect(firstError({ errors: await errorsOf('subscription { platformEvents {') }).extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED', status: 400 });
    expect(firstError({ errors: await errorsOf('subscription { platformEvents { shoeSize } }') }).extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', status: 400 });
    expect(firstError({ errors: await errorsOf('subscription { deliveryUpdates(team: "trellis") { id } }') }).extensions!.code).toBe('FORBIDDEN');
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
