import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { TEST_ENV } from '../../../subgraphs/automations/test/helpers.js';
import { startOf, traces } from '../../../subgraphs/tracing/test/helpers.js';
import { createTestDatabase } from '../../support/database.js';
import { graphqlWsClient, operationResults } from '../../support/graphql-ws.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';
import { spawnEntry, waitForHttp, type NodeProcess } from '../../support/processes.js';
import { TcpBalancer } from './tcp-balancer.js';

/**
 * Subgraph services going away under the gateway (the distributed topology's processes on loopback): two replicas of
 * tracing behind a TCP load balancer, automations and inference as single services reached directly, every other
 * subgraph in the gateway's process. A replica that drains (answers 503 while closing) or is stopped costs clients nothing — the
 * gateway retries what cannot have run — and a subgraph with no replica left is 503 UNAVAILABLE with a retry time
 * on every surface, never INTERNAL.
 */
const secret = randomBytes(32).toString('hex');
const services: NodeProcess[] = [];
let replicaA: NodeProcess;
let replicaB: NodeProcess;
let automations: NodeProcess;
let inference: NodeProcess;
let replicaAPort: number;
let balancer: TcpBalancer;
let platform: TestPlatform;
let ws: Client;

const projectCalls = '{ project(entity: "trellis", name: "default") { fullName callCount } }';
const automationList = '{ automations(entity: "trellis") { nodes { id } } }';

async function startService(name: string, port: number, env: Record<string, string>): Promise<NodeProcess> {
  const service = spawnEntry('server/serve-subgraph.ts', [name], { ...TEST_ENV, ...env, PORT: String(port), HOST: '127.0.0.1', TRELLIS_INTERNAL_SECRET: secret });
  services.push(service);
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, service, 90_000);
  return service;
}

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  const common = { DATABASE_URL: databaseUrl };
  replicaAPort = await freePort();
  const replicaBPort = await freePort();
  const automationsPort = await freePort();
  const inferencePort = await freePort();
  // Replica A drains for as long as a request it holds is unfinished (below), up to 30 s.
  [replicaA, replicaB, automations, inference] = await Promise.all([
    startService('tracing', replicaAPort, { ...common, TRELLIS_SHUTDOWN_TIMEOUT_MS: '30000' }),
    startService('tracing', replicaBPort, common),
    startService('automations', automationsPort, common),
    startService('inference', inferencePort, common),
  ]);
  balancer = new TcpBalancer([replicaAPort, replicaBPort]);
  const balancerPort = await balancer.listen();
  platform = await startTestPlatform({
    databaseUrl,
    workers: false,
    env: {
      ...TEST_ENV,
      TRELLIS_INTERNAL_SECRET: secret,
      TRELLIS_SUBGRAPH_URLS: `tracing=http://127.0.0.1:${balancerPort}/graphql,automations=http://127.0.0.1:${automationsPort}/graphql,inference=http://127.0.0.1:${inferencePort}/graphql`,
    },
  });
  ws = graphqlWsClient(platform.url, platform.adminKey, { lazy: false });
}, 180_000);

afterAll(async () => {
  await ws?.dispose();
  await platform?.close();
  await balancer?.close();
  for (const service of services) service.kill('SIGKILL');
  await Promise.all(services.map((service) => service.exited));
});

/** A request to the replica that never finishes sending its body: the replica's drain waits for it. */
function holdRequest(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"query":');
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Port `port` refuses connections (the process has closed its listener). */
async function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('subgraph services going away under the gateway', () => {
  it('a replica draining (503 while closing) and then stopped costs clients nothing: the gateway retries on a fresh connection', async () => {
    expect((await platform.graphql(projectCalls)).body).toEqual({ data: { project: { fullName: 'trellis/default', callCount: 0 } } });
    const failures: unknown[] = [];
    let succeeded = 0;
    let running = true;
    const client = async (index: number) => {
      for (let n = 0; running; n++) {
        // GraphQL reads through the gateway, and tracing's REST writes (their operation goes through the gateway too).
        if (n % 2 === 0) {
          const { status, body } = await platform.graphql(projectCalls);
          if (status === 200 && !body.errors) succeeded++;
          else failures.push({ status, body });
        } else {
          const { status, body } = await traces(platform, '/call/start', startOf('trellis/default', { id: `drain-${index}-${n}` }));
          if (status === 200) succeeded++;
          else failures.push({ status, body });
        }
      }
    };
    const clients = Promise.all([0, 1, 2, 3].map(client));
    await new Promise((resolve) => setTimeout(resolve, 500));

    const held = await holdRequest(replicaAPort);
    const relayed503Before = balancer.relayed503;
    replicaA.kill('SIGTERM');
    // Draining: A refuses new connections, answers 503 on the keep-alive ones the balancer holds, then closes them.
    const drainDeadline = Date.now() + 15_000;
    while (!(await refuses(replicaAPort)) && Date.now() < drainDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Stopped: gone for good (connections to it are refused; the balancer passes over it).
    replicaA.kill('SIGKILL');
    await replicaA.exited;
    held.destroy();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    running = false;
    await clients;

    expect(failures).toEqual([]);
    expect(succeeded).toBeGreaterThan(20);
    // The drain was seen: replica A answered the gateway 503 while closing, and no client saw it.
    expect(balancer.relayed503 - relayed503Before).toBeGreaterThan(0);
  }, 60_000);

  it('with every replica down: 503 UNAVAILABLE with Retry-After on /graphql, /graphql/ws and tracing\'s REST routes', async () => {
    replicaB.kill('SIGKILL');
    await replicaB.exited;

    const response = await platform.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}` },
      body: JSON.stringify({ query: projectCalls }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    const body = (await response.json()) as any;
    expect(body.data).toEqual({ project: null });
    expect(body.errors.map((error: any) => error.extensions)).toEqual([{ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 2 }]);

    const [overWs] = await operationResults(ws, { query: projectCalls });
    expect(overWs.errors.map((error: any) => error.extensions)).toEqual([{ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 2 }]);

    const write = await traces(platform, '/call/start', startOf('trellis/default'));
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toBe('2');
    expect(write.body).toEqual({ reason: expect.stringContaining('unavailable') });
  }, 30_000);

  it('killed services reached directly (connection refused): 503 UNAVAILABLE after the gateway\'s retries, on GraphQL, subscriptions, inference REST and SSE', async () => {
    expect((await platform.graphql(automationList)).body.errors).toBeUndefined();
    automations.kill('SIGKILL');
    await automations.exited;

    const { status, body } = await platform.graphql(automationList);
    expect(status).toBe(503);
    expect(body.errors.map((error: any) => error.extensions)).toEqual([{ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 2 }]);

    // Its subscriptions (run on the service over the internal graphql-ws endpoint) on the public /graphql/ws.
    const [subscribed] = await operationResults(ws, { query: 'subscription { platformEvents { type } }' });
    expect(subscribed.errors.map((error: any) => error.extensions)).toEqual([{ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 2 }]);

    // Inference (OpenAI's error shape): a read through the gateway, and a streamed completion (SSE, a subscription
    // on the service) that cannot start.
    inference.kill('SIGKILL');
    await inference.exited;
    const openAiUnavailable = {
      error: { message: expect.stringContaining('unavailable'), type: 'server_error', param: null, code: 'unavailable' },
    };
    const models = await platform.fetch('/inference/v1/models', { headers: { authorization: `Bearer ${platform.adminKey}` } });
    expect(models.status).toBe(503);
    expect(models.headers.get('retry-after')).toBe('2');
    expect(await models.json()).toEqual(openAiUnavailable);
    const streamed = await platform.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}` },
      body: JSON.stringify({ model: 'any-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(streamed.status).toBe(503);
    expect(streamed.headers.get('retry-after')).toBe('2');
    expect(await streamed.json()).toEqual(openAiUnavailable);
  }, 30_000);
});
