import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type RunningPostgres } from '../../../platform/db/embedded-postgres.js';
import { createDatabase } from '../../../platform/db/connection.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';
import { spawnEntry, waitForHttp, type NodeProcess } from '../../support/processes.js';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { TEST_ENV } from '../../../subgraphs/automations/test/helpers.js';
import { graphqlWsClient, operationResults } from '../../support/graphql-ws.js';
import { startOf, traces } from '../../../subgraphs/tracing/test/helpers.js';

/**
 * PostgreSQL stopped under a running platform (its own embedded server, so the run's shared one is untouched; the
 * automations subgraph runs as its own service, the others in the platform's process): every surface answers 503 UNAVAILABLE with a retry time in its own shape — never INTERNAL/500 — and the platform serves
 * again, with no restart, once PostgreSQL is back.
 */
let dir: string;
let postgres: RunningPostgres | undefined;
let postgresPort: number;
let platform: TestPlatform;
let ws: Client;
/** The automations subgraph as its own service (distributed topology) on the same database. */
let automations: NodeProcess | undefined;
const secret = 'outage-test-internal-secret-0123456789abcdef';
/** A key whose principal no process has cached: its request needs the database to authenticate. */
let freshKey: string;
let freshKey2: string;

const projectQuery = '{ project(entity: "trellis", name: "default") { fullName callCount } }';
const automationList = '{ automations(entity: "trellis") { nodes { id } } }';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-outage-pg-'));
  postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), ephemeral: true });
  postgresPort = postgres.port;
  const databaseUrl = await createDatabase(postgres.url, 'outage');
  const automationsPort = await freePort();
  automations = spawnEntry('server/serve-subgraph.ts', ['automations'], {
    ...TEST_ENV, DATABASE_URL: databaseUrl, PORT: String(automationsPort), HOST: '127.0.0.1', TRELLIS_INTERNAL_SECRET: secret,
  });
  await waitForHttp(`http://127.0.0.1:${automationsPort}/healthz`, automations, 90_000);
  platform = await startTestPlatform({
    databaseUrl,
    workers: false,
    env: { ...TEST_ENV, TRELLIS_INTERNAL_SECRET: secret, TRELLIS_SUBGRAPH_URLS: `automations=http://127.0.0.1:${automationsPort}/graphql` },
  });
  freshKey = (await platform.createUser('fresh-one', { trellis: 'MEMBER' })).key;
  freshKey2 = (await platform.createUser('fresh-two', { trellis: 'MEMBER' })).key;
  ws = graphqlWsClient(platform.url, platform.adminKey, { lazy: false });
}, 120_000);

afterAll(async () => {
  await ws?.dispose();
  await platform?.close();
  automations?.kill('SIGKILL');
  await automations?.exited;
  await postgres?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('PostgreSQL stopped under the platform', () => {
  it('answers 503 UNAVAILABLE with Retry-After on GraphQL (both transports; a new WebSocket is closed 1013), tracing, inference and training REST, then recovers without a restart', async () => {
    // Warm: the admin's principal is cached and trellis/default known, so these requests reach a resolver's query.
    expect((await platform.graphql(projectQuery)).body.errors).toBeUndefined();
    expect((await platform.graphql(automationList)).body.errors).toBeUndefined();
    expect((await traces(platform, '/call/start', startOf('trellis/default'))).status).toBe(200);
    expect((await operationResults(ws, { query: projectQuery }))[0].errors).toBeUndefined();

    await postgres!.stop();
    postgres = undefined;

    // /graphql, a resolver's query failing: a GraphQL response, 503, the code and its retry hint.
    const graphqlResponse = await platform.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}` },
      body: JSON.stringify({ query: projectQuery }),
    });
    expect(graphqlResponse.status).toBe(503);
    expect(graphqlResponse.headers.get('retry-after')).toBe('2');
    const graphqlBody = (await graphqlResponse.json()) as any;
    expect(graphqlBody.errors[0].extensions).toEqual({ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 2 });

    // /graphql, a subgraph service's resolver failing on the database: the service says UNAVAILABLE, the gateway too.
    const remote = await platform.graphql(automationList);
    expect(remote.status).toBe(503);
    expect(remote.body.errors.map((error: any) => error.extensions)).toEqual([{ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 2 }]);

    // /graphql, authentication needing the database (a key not cached): a GraphQL response too, not OpenAI's shape.
    const unauthenticated = await platform.graphql(projectQuery, {}, freshKey);
    expect(unauthenticated.status).toBe(503);
    expect(unauthenticated.body.errors[0].extensions).toEqual({ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 2 });
    expect(unauthenticated.body).not.toHaveProperty('error');

    // /graphql/ws on a connection opened before the outage.
    const [wsResult] = await operationResults(ws, { query: projectQuery });
    expect(wsResult.errors[0].extensions).toEqual({ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 2 });

    // /graphql/ws, a new connection whose key needs the database: closed with 1013 Try Again Later (clients retry).
    const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
      const socket = new WebSocket(`${platform.url.replace('http', 'ws')}/graphql/ws`, 'graphql-transport-ws');
      socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${freshKey}` } })));
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      socket.once('error', reject);
    });
    expect(closed).toEqual({ code: 1013, reason: expect.stringContaining('try again later') });

    // Tracing (FastAPI-style {reason}): a write reaching the database, and a request authenticating against it.
    for (const key of [platform.adminKey, freshKey]) {
      const write = await traces(platform, '/call/start', startOf('trellis/default'), key);
      expect(write.status).toBe(503);
      expect(write.headers.get('retry-after')).toBe('2');
      expect(write.body).toEqual({ reason: expect.stringContaining('unavailable') });
    }

    // Inference (OpenAI's shape).
    const models = await platform.fetch('/inference/v1/models', { headers: { authorization: `Bearer ${freshKey2}` } });
    expect(models.status).toBe(503);
    expect(models.headers.get('retry-after')).toBe('2');
    expect(await models.json()).toEqual({
      error: { message: expect.stringContaining('unavailable'), type: 'server_error', param: null, code: 'unavailable' },
    });

    // Training (OpenAI-style outside validation): a read reaching the database.
    const job = await platform.fetch('/training/v1/preview/training-jobs/7c9e6679-7425-40de-944b-e07fc1f90ae7', { headers: { authorization: `Bearer ${platform.adminKey}` } });
    expect(job.status).toBe(503);
    expect(job.headers.get('retry-after')).toBe('2');
    expect(await job.json()).toEqual({
      error: { message: expect.stringContaining('unavailable'), type: 'server_error', param: null, code: 'unavailable' },
    });

    // PostgreSQL back on the same data directory and port: the same platform serves again.
    postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), ephemeral: true, port: postgresPort });
    const deadline = Date.now() + 20_000;
    let recovered = await platform.graphql(projectQuery);
    while (recovered.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      recovered = await platform.graphql(projectQuery);
    }
    expect(recovered).toMatchObject({ status: 200, body: { data: { project: { fullName: 'trellis/default' } } } });
    expect((await traces(platform, '/call/start', startOf('trellis/default'), freshKey)).status).toBe(200);
    expect((await platform.graphql(automationList)).body.errors).toBeUndefined();
    expect((await platform.fetch('/inference/v1/models', { headers: { authorization: `Bearer ${freshKey2}` } })).status).toBe(200);
    expect((await platform.fetch('/training/v1/preview/training-jobs/7c9e6679-7425-40de-944b-e07fc1f90ae7', { headers: { authorization: `Bearer ${platform.adminKey}` } })).status).toBe(404);
  }, 90_000);
});
