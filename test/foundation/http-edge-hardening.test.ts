import http from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildSchema } from 'graphql';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../bench/inference-stand-in-upstream.js';
import { freePort } from '../../platform/db/embedded-postgres.js';
import { serveSubscriptions } from '../../platform/graphql/subscriptions-over-websocket.js';
import { createLogger } from '../../platform/logger.js';
import { createTestDatabase } from '../support/database.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { spawnEntry, waitForHttp } from '../support/processes.js';
import { connectRaw, requestHead, sleep, WEBSOCKET_UPGRADE_HEADERS, type RawConnection } from '../support/raw-http.js';

/**
 * The HTTP edge as a black-box probe sees it: what happens before a route's handler runs (credentials, body
 * admission, `Expect: 100-continue`, upgrades to paths without a WebSocket endpoint, slow clients) and what happens
 * to connections when the platform shuts down.
 */
const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;
const HUGE = 240_000_000; // declared, never sent

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(() => platform?.close());

describe('WebSocket upgrade requests to paths without a WebSocket endpoint', () => {
  it('are answered 404 and their connections closed', async () => {
    const connections = await Promise.all(Array.from({ length: 50 }, () => connectRaw(platform.url)));
    for (const [index, connection] of connections.entries()) {
      connection.send(requestHead('GET', index % 2 ? `/x${index}` : '/graphql', WEBSOCKET_UPGRADE_HEADERS));
    }
    const responses = await Promise.all(connections.map((connection) => connection.nextResponse(3_000)));
    expect(responses.map((response) => response.status)).toEqual(connections.map(() => 404));
    const ended = await Promise.all(connections.map((connection) => Promise.race([connection.ended, sleep(3_000).then(() => 'still open')])));
    expect(ended).toEqual(connections.map(() => 'closed'));
  });

  it('still reach the graphql-ws endpoint at /graphql/ws', async () => {
    const connection = await connectRaw(platform.url);
    connection.send(requestHead('GET', '/graphql/ws', { ...WEBSOCKET_UPGRADE_HEADERS, 'Sec-WebSocket-Protocol': 'graphql-transport-ws' }));
    expect((await connection.nextResponse()).status).toBe(101);
    connection.destroy();
  });

  it('are refused beside the internal subscription endpoint of a subgraph service', async () => {
    const server = http.createServer((_request, response) => response.end());
    const schema = buildSchema('type Query { a: Int } type Subscription { b: Int }');
    const close = serveSubscriptions(server, schema, 'secret', createLogger({ level: 'silent' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const elsewhere = await connectRaw(url);
      elsewhere.send(requestHead('GET', '/graphql/ws', WEBSOCKET_UPGRADE_HEADERS));
      expect((await elsewhere.nextResponse(3_000)).status).toBe(404);
      expect(await elsewhere.ended).toBe('closed');
      const internal = await connectRaw(url);
      internal.send(requestHead('GET', '/graphql/internal-ws', { ...WEBSOCKET_UPGRADE_HEADERS, 'Sec-WebSocket-Protocol': 'graphql-transport-ws' }));
      expect((await internal.nextResponse()).status).toBe(101);
      internal.destroy();
    } finally {
      await close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('credentials are checked on the request headers, before any body is read', () => {
  const uploads = [
    { path: '/registry/v1/artifacts/trellis/default/weights', shape: 'openai' },
    { path: '/training/v1/workers/jobs/00000000-0000-0000-0000-000000000000/complete', shape: 'openai' },
    { path: '/traces/call/upsert_batch', shape: 'reason' },
    { path: '/inference/v1/chat/completions', shape: 'openai' },
  ] as const;

  for (const { path: route, shape } of uploads) {
    it(`answers 401 to an anonymous ${route} that expects 100-continue, without 100 Continue`, async () => {
      const connection = await connectRaw(platform.url);
      connection.send(requestHead('POST', route, { 'Content-Type': 'application/json', 'Content-Length': HUGE, Expect: '100-continue' }));
      const response = await connection.nextResponse(3_000);
      expect(response.status).toBe(401);
      const body = JSON.parse(response.body);
      if (shape === 'reason') expect(body).toEqual({ reason: expect.any(String) });
      else expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
      connection.destroy();
    });
  }

  it('answers 401 to a bad key and to Basic credentials with a user other than `api` without waiting for the body', async () => {
    for (const authorization of ['Bearer trl_not_a_real_key', basic('api', 'trl_not_a_real_key'), basic('mallory', ADMIN_KEY)]) {
      const connection = await connectRaw(platform.url);
      connection.send(requestHead('POST', uploads[0].path, { 'Content-Type': 'application/json', 'Content-Length': HUGE, Authorization: authorization }));
      expect((await connection.nextResponse(3_000)).status).toBe(401);
      connection.destroy();
    }
  });

  it('sends 100 Continue to a valid key, then reads the body', async () => {
    const connection = await connectRaw(platform.url);
    const body = JSON.stringify({ project_id: 'trellis/default', limit: 1 });
    connection.send(
      requestHead('POST', '/traces/calls/query', {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        Expect: '100-continue',
        Authorization: basic('api', ADMIN_KEY),
      }),
    );
    expect((await connection.nextResponse(3_000)).status).toBe(100);
    connection.send(body);
    const response = await connection.nextResponse();
    expect(response.status).toBe(200);
    connection.destroy();
  });

  it('accepts Basic credentials only with the user `api`, the one the Weave SDK sends', async () => {
    const with_ = (authorization: string) => platform.fetch('/traces/calls/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ project_id: 'trellis/default', limit: 1 }),
    });
    expect((await with_(basic('api', ADMIN_KEY))).status).toBe(200);
    const mallory = await with_(basic('mallory', ADMIN_KEY));
    expect(mallory.status).toBe(401);
    expect(await mallory.json()).toEqual({ reason: expect.any(String) });
    const graphql = await platform.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic('mallory', ADMIN_KEY) },
      body: JSON.stringify({ query: '{ viewer { username } }' }),
    });
    expect(graphql.status).toBe(401);
  });

  it('answers /graphql with a bad key 401 before the body, in the GraphQL error shape', async () => {
    const connection = await connectRaw(platform.url);
    connection.send(requestHead('POST', '/graphql', { 'Content-Type': 'application/json', 'Content-Length': HUGE, Expect: '100-continue', Authorization: 'Bearer trl_not_a_real_key' }));
    const response = await connection.nextResponse(3_000);
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body).errors[0]).toMatchObject({ message: 'Invalid or revoked API key', extensions: { code: 'UNAUTHENTICATED' } });
    connection.destroy();
  });

  it('still serves anonymous /graphql requests, but caps their bodies', async () => {
    // Which operations anonymous callers may run is the graph's business; the edge only admits the request.
    const anonymous = await platform.graphql('{ __typename }', undefined, null);
    expect(anonymous.status).not.toBe(413);
    expect(Object.keys(anonymous.body).some((key) => key === 'data' || key === 'errors')).toBe(true);
    // 100 KiB of JSON outside the document, so no GraphQL rule but the body limit can refuse it.
    const padded = JSON.stringify({ query: '{ __typename }', extensions: { padding: 'x'.repeat(100 * 1024) } });
    const declared = await platform.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: padded });
    expect(declared.status).toBe(413);
    // Chunked: no Content-Length to refuse up front, the cap counts what arrives.
    const connection = await connectRaw(platform.url);
    connection.send(requestHead('POST', '/graphql', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }));
    const chunk = padded;
    connection.send(`${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n0\r\n\r\n`);
    expect((await connection.nextResponse()).status).toBe(413);
    connection.destroy();
    // With a key, the platform's ordinary limit applies.
    const authenticated = await platform.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: padded,
    });
    expect(authenticated.status).toBe(200);
  });

  it('authenticates each request once, on its headers', async () => {
    const authenticator = (platform.identity as any).authenticator;
    const original = authenticator.authenticate;
    let calls = 0;
    authenticator.authenticate = (key: string) => {
      calls++;
      return original.call(authenticator, key);
    };
    try {
      expect((await platform.graphql('{ viewer { username } }')).status).toBe(200);
      expect(calls).toBe(1);
      const rest = await platform.fetch('/traces/calls/query', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
        body: JSON.stringify({ project_id: 'trellis/default', limit: 1 }),
      });
      expect(rest.status).toBe(200);
      expect(calls).toBe(2);
    } finally {
      authenticator.authenticate = original;
    }
  });
});

describe('slow clients', () => {
  let slow: TestPlatform;
  let upstream: StandInUpstream;
  beforeAll(async () => {
    // Six streamed words 400 ms apart: a response that lasts well beyond the request timeout.
    upstream = await startStandInUpstream({ name: 'slow', chunkDelayMs: 400 });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-edge-'));
    const modelsFile = path.join(dir, 'models.json');
    await writeFile(modelsFile, JSON.stringify({ models: [{ id: 'slow-chat', backend: 'openai-compatible', deployments: [{ base_url: upstream.baseUrl }] }] }));
    slow = await startTestPlatform({
      workers: false,
      env: { TRELLIS_REQUEST_TIMEOUT_MS: '1000', TRELLIS_HEADERS_TIMEOUT_MS: '1000', TRELLIS_MODELS_FILE: modelsFile },
    });
  });
  afterAll(async () => {
    await slow?.close();
    await upstream?.close();
  });

  it('are cut off when the request body takes longer than the request timeout', async () => {
    const connection = await connectRaw(slow.url);
    connection.send(requestHead('POST', '/traces/calls/query', { 'Content-Type': 'application/json', 'Content-Length': 100, Authorization: `Bearer ${ADMIN_KEY}` }));
    const trickle = setInterval(() => connection.send(' '), 200);
    try {
      const ended = await Promise.race([connection.ended, sleep(4_000).then(() => 'still open')]);
      expect(ended).not.toBe('still open');
    } finally {
      clearInterval(trickle);
      connection.destroy();
    }
  });

  it('are cut off when the request headers take longer than the headers timeout', async () => {
    const connection = await connectRaw(slow.url);
    connection.send('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const trickle = setInterval(() => connection.send('X-Slow: 1\r\n'), 200);
    try {
      const ended = await Promise.race([connection.ended, sleep(4_000).then(() => 'still open')]);
      expect(ended).not.toBe('still open');
    } finally {
      clearInterval(trickle);
      connection.destroy();
    }
  });

  it('do not limit how long a response may stream (server-sent events)', async () => {
    const started = Date.now();
    const response = await slow.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ model: 'slow-chat', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(Date.now() - started).toBeGreaterThan(1_500);
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(text).toContain('upstream');
  });

  it('do not limit how long a WebSocket stays open', async () => {
    const socket = new WebSocket(`${slow.url.replace('http', 'ws')}/graphql/ws`, 'graphql-transport-ws');
    const messages: string[] = [];
    socket.on('message', (data) => messages.push(String(data)));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${ADMIN_KEY}` } }));
    await expect.poll(() => messages.some((message) => message.includes('connection_ack'))).toBe(true);
    await sleep(2_000);
    socket.send(JSON.stringify({ type: 'ping' }));
    await expect.poll(() => messages.some((message) => message.includes('pong'))).toBe(true);
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });
});

describe('shutdown', () => {
  async function keepAliveConnections(url: string, count: number): Promise<RawConnection[]> {
    const connections = await Promise.all(Array.from({ length: count }, () => connectRaw(url)));
    for (const connection of connections) {
      connection.send(requestHead('GET', '/healthz', {}));
      expect((await connection.nextResponse()).headers.connection).toBe('keep-alive');
    }
    return connections;
  }

  it('answers requests arriving on idle keep-alive connections while it drains, then closes promptly', async () => {
    const stopping = await startTestPlatform({ workers: false });
    const idle = await keepAliveConnections(stopping.url, 6);
    // A request in flight when shutdown begins: its body is still arriving.
    const inFlight = await connectRaw(stopping.url);
    const body = JSON.stringify({ project_id: 'trellis/default', limit: 1 });
    inFlight.send(requestHead('POST', '/traces/calls/query', { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Authorization: `Bearer ${ADMIN_KEY}` }));
    inFlight.send(body.slice(0, 5));
    await sleep(100);

    const started = Date.now();
    const closed = stopping.close().then(() => Date.now() - started);
    await sleep(20);
    for (const connection of idle) connection.send(requestHead('GET', '/healthz', {}));
    const late = await Promise.all(idle.map((connection) => connection.nextResponse(3_000).catch((error: Error) => error.message)));
    for (const response of late) expect(response).toMatchObject({ status: 503, headers: { connection: 'close' } });

    inFlight.send(body.slice(5));
    const finished = await inFlight.nextResponse(3_000);
    expect(finished.status).toBe(200);
    expect(finished.headers.connection).toBe('close');
    expect(await Promise.race([closed, sleep(5_000).then(() => 'still closing')])).toBeLessThan(3_000);
  });

  it('completes within the drain timeout even when a request never finishes or a WebSocket client never answers', async () => {
    const stopping = await startTestPlatform({ workers: false, env: { TRELLIS_SHUTDOWN_TIMEOUT_MS: '1500' } });
    const stuck = await connectRaw(stopping.url);
    stuck.send(requestHead('POST', '/traces/calls/query', { 'Content-Type': 'application/json', 'Content-Length': 100, Authorization: `Bearer ${ADMIN_KEY}` }));
    const upgrade = await connectRaw(stopping.url);
    upgrade.send(requestHead('GET', '/elsewhere', WEBSOCKET_UPGRADE_HEADERS));
    // A WebSocket client that will not answer the server's close frame (the server would wait 30 s for it).
    const websocket = await connectRaw(stopping.url);
    websocket.send(requestHead('GET', '/graphql/ws', { ...WEBSOCKET_UPGRADE_HEADERS, 'Sec-WebSocket-Protocol': 'graphql-transport-ws' }));
    expect((await websocket.nextResponse()).status).toBe(101);
    await sleep(100);
    const started = Date.now();
    const closed = stopping.close().then(() => Date.now() - started);
    expect(await Promise.race([closed, sleep(6_000).then(() => 'still closing')])).toBeLessThan(4_000);
    for (const connection of [stuck, websocket]) {
      expect(await Promise.race([connection.ended, sleep(1_000).then(() => 'still open')])).not.toBe('still open');
    }
  });

  it('ends `npm start` on SIGTERM within the drain timeout, whatever its clients hold open', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = spawnEntry('server/main.ts', [], {
      DATABASE_URL: await createTestDatabase(),
      PORT: String(port),
      TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY,
      TRELLIS_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'trellis-edge-')),
      TRELLIS_SHUTDOWN_TIMEOUT_MS: '1500',
    });
    try {
      await waitForHttp(`${url}/healthz`, server);
      const upgrade = await connectRaw(url);
      upgrade.send(requestHead('GET', '/x', WEBSOCKET_UPGRADE_HEADERS));
      const stuck = await connectRaw(url);
      stuck.send(requestHead('POST', '/traces/calls/query', { 'Content-Type': 'application/json', 'Content-Length': 100, Authorization: `Bearer ${ADMIN_KEY}` }));
      await sleep(200);
      server.kill('SIGTERM');
      expect(await Promise.race([server.exited, sleep(10_000).then(() => 'still running')])).toBe(0);
    } finally {
      server.kill('SIGKILL');
    }
  }, 60_000);
});
