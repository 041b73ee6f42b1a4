import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ExecutionResult } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { serveEventStream, type SubscriptionExecutor } from '../../rest-adapter/sse.js';
import type { SseOptions } from '../../rest-adapter/route.js';

/**
 * How rest-adapter/sse.ts puts events on the wire: events that are ready in the same tick leave together as one
 * chunk of the chunked body, an event that comes later leaves as soon as it exists, and `[DONE]` ends the body.
 */
const SSE: SseOptions = {
  when: () => true,
  subgraph: 'test',
  subscription: 'subscription { ticks }',
  variables: () => ({}),
  event: (data: { ticks: unknown }) => data.ticks,
  done: '[DONE]',
};

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/**
 * Serves one event stream whose events come from `source`; answers the body's chunks and when each arrived
 * (performance.now(): the server runs in this process, so the times compare with the source's own).
 */
async function stream(source: () => AsyncGenerator<unknown>): Promise<{ chunks: { at: number; body: string }[] }> {
  const execute: SubscriptionExecutor = async () =>
    (async function* () {
      for await (const value of source()) yield { data: { ticks: value } } as ExecutionResult;
    })();
  app = Fastify();
  app.decorateRequest('principal', null);
  app.get('/events', (request, reply) => serveEventStream(request, reply, SSE, { body: null, params: {}, query: {}, principal: null, headers: {} }, 'inference', execute));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = new URL(address);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.write('GET /events HTTP/1.1\r\nhost: x\r\n\r\n');
  let raw = '';
  const arrivals: { at: number; length: number }[] = [];
  // The response stays open (keep-alive): read until the chunked body's last chunk.
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (data: Buffer) => {
      raw += data.toString('utf8');
      arrivals.push({ at: performance.now(), length: raw.length });
      if (raw.endsWith('\r\n0\r\n\r\n')) resolve();
    });
  });
  socket.destroy();
  // The chunked body's chunks, each with the time its last byte arrived.
  const chunks: { at: number; body: string }[] = [];
  let offset = raw.indexOf('\r\n\r\n') + 4;
  for (;;) {
    const sizeEnd = raw.indexOf('\r\n', offset);
    const size = parseInt(raw.slice(offset, sizeEnd), 16);
    if (size === 0) break;
    const bodyStart = sizeEnd + 2;
    chunks.push({ at: arrivals.find((arrival) => arrival.length >= bodyStart + size)!.at, body: raw.slice(bodyStart, bodyStart + size) });
    offset = bodyStart + size + 2;
  }
  return { chunks };
}

describe('event streams on the wire (rest-adapter/sse.ts)', () => {
  it('sends events ready in the same tick as one chunk, and a later event as soon as it exists', async () => {
    let fourthProducedAt = 0;
    const { chunks } = await stream(async function* () {
      yield { n: 1 };
      yield { n: 2 };
      yield { n: 3 };
      await new Promise((resolve) => setTimeout(resolve, 150));
      fourthProducedAt = performance.now();
      yield { n: 4 };
    });
    expect(chunks.map((chunk) => chunk.body)).toEqual([
      'data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\n',
      'data: {"n":4}\n\ndata: [DONE]\n\n',
    ]);
    // The first three did not wait for the fourth.
    expect(chunks[0]!.at).toBeLessThan(fourthProducedAt);
  });

  it('flushes the first event before the next is produced (time to first byte is the first event)', async () => {
    let secondProducedAt = 0;
    const { chunks } = await stream(async function* () {
      yield { first: true };
      await new Promise((resolve) => setTimeout(resolve, 200));
      secondProducedAt = performance.now();
      yield { second: true };
    });
    expect(chunks[0]!.body).toBe('data: {"first":true}\n\n');
    expect(chunks[0]!.at).toBeLessThan(secondProducedAt);
    expect(chunks.at(-1)!.body).toContain('data: [DONE]\n\n');
  });
});
