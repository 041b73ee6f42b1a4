import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { signPrincipal } from '../../../platform/auth/internal-signature.js';
import { SUBGRAPHS } from '../../../subgraphs/index.js';
import { createTestDatabase } from '../../support/database.js';
import { spawnEntry, waitForHttp, type NodeProcess } from '../../support/processes.js';
import { ADMIN_KEY } from '../../support/platform.js';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TEST_ENV } from '../../../subgraphs/automations/test/helpers.js';
import { Receiver } from '../../../subgraphs/automations/test/receiver.js';

/**
 * The docker-compose topology as plain OS processes on loopback: one process per subgraph and a gateway process
 * that reaches them by URL, all on one PostgreSQL database.
 */
const processes: NodeProcess[] = [];
const subgraphUrls: Record<string, string> = {};
const secret = randomBytes(32).toString('hex');
let gatewayUrl: string;
let receiver: Receiver;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  receiver = await new Receiver().start();
  const common = { ...TEST_ENV, DATABASE_URL: databaseUrl, TRELLIS_INTERNAL_SECRET: secret, HOST: '127.0.0.1', TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY };
  const gatewayPort = await freePort();
  // Automations asks identity and the registry (through the gateway, as the caller) whether an automation's scope exists.
  const graphFor: Record<string, Record<string, string>> = { automations: { TRELLIS_GATEWAY_URL: `http://127.0.0.1:${gatewayPort}/graphql` } };
  for (const subgraph of SUBGRAPHS) {
    let port = await freePort();
    while (port === gatewayPort) port = await freePort();
    const service = spawnEntry('server/serve-subgraph.ts', [subgraph.name], { ...common, ...graphFor[subgraph.name], PORT: String(port) });
    processes.push(service);
    subgraphUrls[subgraph.name] = `http://127.0.0.1:${port}/graphql`;
  }
  await Promise.all(
    SUBGRAPHS.map((subgraph, index) => waitForHttp(subgraphUrls[subgraph.name]!.replace('/graphql', '/healthz'), processes[index]!, 90_000)),
  );
  const gateway = spawnEntry('server/main.ts', [], {
    ...common,
    PORT: String(gatewayPort),
    TRELLIS_SUBGRAPH_URLS: Object.entries(subgraphUrls).map(([name, url]) => `${name}=${url}`).join(','),
  });
  processes.push(gateway);
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  await waitForHttp(`${gatewayUrl}/healthz`, gateway, 90_000);
}, 180_000);

afterAll(async () => {
  for (const process of processes) process.kill('SIGTERM');
  await Promise.all(processes.map((process) => process.exited));
  await receiver?.close();
});

async function graphql(url: string, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
  return { status: response.status, body: (await response.json()) as any };
}

describe('distributed topology', () => {
  it('runs a cross-subgraph query through the gateway process', async () => {
    const { status, body } = await graphql(
      `${gatewayUrl}/graphql`,
      '{ viewer { username } project(entity: "trellis", name: "default") { fullName callCount runCount trainingModelCount } team(name: "trellis") { webhookCount } }',
      { authorization: `Bearer ${ADMIN_KEY}` },
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      data: {
        viewer: { username: 'admin' },
        project: { fullName: 'trellis/default', callCount: 0, runCount: 0, trainingModelCount: 0 },
        team: { webhookCount: 0 },
      },
    });
  });

  it('carries authorization decisions across processes', async () => {
    const { body } = await graphql(`${gatewayUrl}/graphql`, '{ team(name: "trellis") { webhookCount } }');
    expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('refuses callers of a subgraph port that lack the gateway\'s signed identity', async () => {
    const query = '{ _service { sdl } }';
    const unsigned = await graphql(subgraphUrls.tracing!, query);
    expect(unsigned.status).toBe(401);
    const forged = await graphql(subgraphUrls.tracing!, query, signPrincipal(null, 'not-the-secret'));
    // Signed with another secret: refused, as the misconfiguration it is when a gateway sends it (platform/http/internal-secret-mismatch.ts).
    expect(forged.status).toBe(503);
    expect(forged.body).toEqual({ errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'UNAVAILABLE', reason: 'INTERNAL_SECRET_MISMATCH' }) })] });
    const signed = await graphql(subgraphUrls.tracing!, query, signPrincipal(null, secret));
    expect(signed.status).toBe(200);
    expect(signed.body.data._service.sdl).toContain('callCount');
  });

  it('runs webhook automations across processes: registry events reach the automations service, which delivers them and streams them through the gateway process\'s /graphql/ws', async () => {
    const admin = { authorization: `Bearer ${ADMIN_KEY}` };
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const response = await fetch(`${gatewayUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...admin }, body: JSON.stringify({ query, variables }) });
      const body = (await response.json()) as any;
      expect(body.errors).toBeUndefined();
      return body.data;
    };
    // Dashboards subscribe on the gateway process's /graphql/ws, which runs automations' subscription on its service.
    const client = createClient({
      url: `${gatewayUrl.replace('http', 'ws')}/graphql/ws`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${ADMIN_KEY}` },
      retryAttempts: 0,
    });
    const streamed: { type: string; payload: any }[] = [];
    const twoEvents = new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query: 'subscription { platformEvents { type payload } }' },
        {
          next: (value) => {
            if (value.errors) reject(new Error(JSON.stringify(value.errors)));
            streamed.push((value.data as any).platformEvents);
            if (streamed.length === 2) resolve();
          },
          error: (error) => reject(error instanceof Error ? error : new Error(JSON.stringify(error))),
          complete: () => undefined,
        },
      );
    });
    try {
      const { createWebhook } = await gql('mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { id } }', {
        input: { team: 'trellis', name: 'distributed', endpointUrl: receiver.url('/distributed') },
      });
      await gql('mutation($input: CreateAutomationInput!) { createAutomation(input: $input) { id } }', {
        input: {
          entity: 'trellis', scopeKind: 'PROJECT', scopeName: 'default', name: 'on-tag', webhookId: createWebhook.id,
          event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '^ship$' }, payload: '{"tag":"${tag}","version":"${artifact_version_string}"}',
        },
      });
      await gql('mutation($input: CreateArtifactVersionInput!) { createArtifactVersion(input: $input) { id } }', {
        input: { entity: 'trellis', project: 'default', collection: 'dist', tags: ['ship'] },
      });
      const [delivery] = await receiver.waitFor(1, (r) => r.path === '/distributed', 20_000);
      expect(JSON.parse(delivery!.body)).toEqual({ tag: 'ship', version: 'trellis/default/dist:v0' });
      await twoEvents;
      expect(streamed.map((event) => [event.type, event.payload.tag ?? null])).toEqual([
        ['CREATE_ARTIFACT', null],
        ['ADD_ARTIFACT_TAG', 'ship'],
      ]);
    } finally {
      await client.dispose();
    }
  }, 60_000);
});

describe('distributed topology: error codes', () => {
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };
  const post = async (query: string, variables?: Record<string, unknown>) => {
    const response = await fetch(`${gatewayUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...admin }, body: JSON.stringify({ query, variables }) });
    return (await response.json()) as { errors?: { message: string; extensions: Record<string, unknown> }[] };
  };

  // The same extensions as in one process (test/foundation/graphql-errors.test.ts): nothing says which service answered.
  it('carries catalogue codes, reasons and argument paths from subgraph services through the gateway', async () => {
    const start = { projectId: 'trellis/default', opName: '', startedAt: new Date().toISOString(), attributes: {}, inputs: {} };
    const invalid = await post('mutation($input: CallStartInput!) { startCall(input: $input) { id } }', { input: start });
    expect(invalid.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
      status: 422,
      field: ['input', 'opName'],
      issues: expect.arrayContaining([expect.objectContaining({ loc: ['input', 'opName'], type: 'string_too_short' })]),
    });
    const missing = await post('{ trainingModel(id: "no-such-model") { id } }');
    expect(missing.errors![0]!.extensions).toEqual({ code: 'NOT_FOUND', status: 404, param: 'model_id' });
    expect((await post('mutation { createTeam(name: "distributed-twice") { name } }')).errors).toBeUndefined();
    const conflict = await post('mutation { createTeam(name: "distributed-twice") { name } }');
    expect(conflict.errors![0]!.extensions).toEqual({ code: 'CONFLICT', status: 409 });
    const variable = await post('query($id: ID!) { trainingModel(id: $id) { id } }');
    expect(variable.errors![0]!.extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400, field: ['$id'] });
  });

  it('answers graphql-ws errors of the automations service with catalogue codes, on the gateway process\'s /graphql/ws', async () => {
    const client = createClient({
      url: `${gatewayUrl.replace('http', 'ws')}/graphql/ws`,
      webSocketImpl: WebSocket,
      connectionParams: admin,
      retryAttempts: 0,
    });
    try {
      const errors = await new Promise<any[]>((resolve, reject) => {
        client.subscribe(
          { query: 'subscription { platformEvents(after: "not-a-cursor") { id } }' },
          { next: (value) => value.errors && resolve([...value.errors]), error: (error) => (Array.isArray(error) ? resolve(error) : reject(error)), complete: () => undefined },
        );
      });
      expect(errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST', status: 400, param: 'after', field: ['after'] });
    } finally {
      await client.dispose();
    }
  });

  it('has one public graphql-ws endpoint: subgraph services serve only the signed internal one', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(subgraphUrls.automations!.replace('http', 'ws').replace('/graphql', '/graphql/ws'), 'graphql-transport-ws');
      socket.on('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
        socket.terminate();
      });
      socket.on('open', () => reject(new Error('the automations service accepted a public graphql-ws connection')));
      socket.on('error', () => undefined);
    });
    expect(status).toBe(404);
  });

  it('serves every subgraph\'s queries over the gateway process\'s /graphql/ws', async () => {
    const client = createClient({ url: `${gatewayUrl.replace('http', 'ws')}/graphql/ws`, webSocketImpl: WebSocket, connectionParams: admin, retryAttempts: 0 });
    try {
      const result = await new Promise<any>((resolve, reject) => {
        client.subscribe(
          { query: '{ viewer { username } project(entity: "trellis", name: "default") { fullName trainingModelCount } team(name: "trellis") { name } }' },
          { next: resolve, error: reject, complete: () => undefined },
        );
      });
      expect(result).toEqual({ data: { viewer: { username: 'admin' }, project: { fullName: 'trellis/default', trainingModelCount: 0 }, team: { name: 'trellis' } } });
    } finally {
      await client.dispose();
    }
  });
});
