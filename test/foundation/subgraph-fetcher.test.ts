import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../platform/db/embedded-postgres.js';
import { IDLE_CONNECTION_MS, subgraphFetcher } from '../../gateway/subgraph-fetcher.js';

/**
 * The gateway's fetch of a subgraph (real servers on loopback): retried on a fresh connection when nothing can have
 * run — refused, or a closing service's 503 — at most twice; never when the request may have run.
 */
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function serve(port: number, handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler);
  servers.push(server);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

const graphqlAnswer: http.RequestListener = (request, response) => {
  request.resume();
  request.once('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}'));
};
const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ ok }"}' };

describe('subgraphFetcher', () => {
  it('retries a refused connection, and reaches the service that is back by then', async () => {
    const port = await freePort();
    const retries: string[] = [];
    const fetcher = subgraphFetcher({
      backoffMs: 20,
      // The service comes back while the gateway backs off (as a restarted replica, or another one, would).
      onRetry: ({ reason }) => {
        retries.push(reason);
        if (retries.length === 1) void serve(port, graphqlAnswer);
      },
    });
    const response = await fetcher(`http://127.0.0.1:${port}/graphql`, init);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { ok: true } });
    expect(retries).toEqual(['connection failed (ECONNREFUSED)']);
  });

  it('gives up after two retries: the last error is the caller\'s', async () => {
    const port = await freePort();
    let retries = 0;
    const fetcher = subgraphFetcher({ backoffMs: 10, onRetry: () => void retries++ });
    await expect(fetcher(`http://127.0.0.1:${port}/graphql`, init)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(retries).toBe(2);
  });

  it('retries a 503 that is not a GraphQL response (Fastify while closing), not a GraphQL answer', async () => {
    let requests = 0;
    const server = await serve(0, (request, response) => {
      request.resume();
      request.once('end', () => {
        requests++;
        if (requests === 1) {
          response.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
          response.end('{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}');
        } else if (requests === 2) {
          response.writeHead(503, { 'content-type': 'application/json' });
          response.end('{"errors":[{"message":"no","extensions":{"code":"UNAVAILABLE"}}]}');
        } else {
          graphqlAnswer(request, response);
        }
      });
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    let retries = 0;
    const fetcher = subgraphFetcher({ backoffMs: 10, onRetry: () => void retries++ });
    const response = await fetcher(url, init);
    // The closing answer was retried; the subgraph's own GraphQL answer (even a 503) is the response.
    expect(requests).toBe(2);
    expect(retries).toBe(1);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ errors: [{ message: 'no', extensions: { code: 'UNAVAILABLE' } }] });
  });

  it('does not retry a connection broken after the request was written (it may have run)', async () => {
    let requests = 0;
    const server = await serve(0, (request) => {
      request.resume();
      request.once('end', () => {
        requests++;
        request.socket.resetAndDestroy();
      });
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    let retries = 0;
    const fetcher = subgraphFetcher({ backoffMs: 10, onRetry: () => void retries++ });
    await expect(fetcher(url, init)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(requests).toBe(1);
    expect(retries).toBe(0);
  });

  it('closes a kept-alive connection once it has been idle for IDLE_CONNECTION_MS, so none is left for a leaving service to close under a request', async () => {
    const server = await serve(0, graphqlAnswer);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    const fetcher = subgraphFetcher();
    const openConnections = () => new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    expect((await fetcher(url, init)).status).toBe(200);
    expect(await openConnections()).toBe(1); // kept alive for the next fetch
    await new Promise((resolve) => setTimeout(resolve, IDLE_CONNECTION_MS + 300));
    expect(await openConnections()).toBe(0);
  });
});
