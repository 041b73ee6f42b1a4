import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { upstreamEvents } from '../backends/openai-compatible/upstream-events.js';

describe('upstreamEvents', () => {
  const frames = ['data: {"n":1}\n\n', 'data: {"n":2}\n\ndata: [DONE]\n\n', 'data: {"n":3}\n\n'];

  it('yields every data field in order, across chunk boundaries', async () => {
    const body = Readable.from(['data: {"n"', ':1}\n\ndata: [DO', 'NE]\n\n'].map((text) => Buffer.from(text)));
    const events: string[] = [];
    for await (const data of upstreamEvents(body)) events.push(data);
    expect(events).toEqual(['{"n":1}', '[DONE]']);
  });

  it('leaves the body to the caller when the consumer stops early (at [DONE]): not destroyed, the rest still readable', async () => {
    const body = Readable.from(frames.map((text) => Buffer.from(text)));
    const events: string[] = [];
    for await (const data of upstreamEvents(body)) {
      events.push(data);
      if (data === '[DONE]') break;
    }
    expect(events).toEqual(['{"n":1}', '{"n":2}', '[DONE]']);
    expect(body.destroyed).toBe(false);
    const rest: string[] = [];
    for await (const bytes of body) rest.push(Buffer.from(bytes).toString('utf8'));
    expect(rest.join('')).toBe('data: {"n":3}\n\n');
  });
});
