import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * `stream: true` on the training chat endpoints: server-sent OpenAI chunks ending with `data: [DONE]`, carrying the
 * same text and logprobs as the non-streaming response, usage when `stream_options.include_usage`; errors before the
 * stream starts are ordinary OpenAI error responses.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(async () => {
  await platform?.close();
});

const post = (path: string, body: unknown) =>
  platform.fetch(`/training${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The `data:` payloads of an event stream, in order. */
async function events(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

const request = {
  messages: [{ role: 'user', content: 'Name a city.' }],
  max_tokens: 6,
  temperature: 0,
  n: 2,
  logprobs: true,
};

describe('checkpoint chat completions with stream: true', () => {
  it('streams chunks with the same text and logprobs as the non-streaming response, then usage and [DONE]', async () => {
    const plain = (await (await post('/v1/chat/completions', { ...request, model: 'trellis-tiny' })).json()) as any;

    const response = await post('/v1/chat/completions/', { ...request, model: 'trellis-tiny', stream: true, stream_options: { include_usage: true } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const data = await events(response);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((payload) => JSON.parse(payload));
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    for (const chunk of chunks) expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: 'trellis-tiny', created: expect.any(Number) });

    for (const index of [0, 1]) {
      const ofChoice = chunks.flatMap((chunk) => chunk.choices.filter((choice: { index: number }) => choice.index === index));
      expect(ofChoice[0].delta).toEqual({ role: 'assistant', content: '' });
      expect(ofChoice.map((choice: { delta: { content?: string } }) => choice.delta.content ?? '').join('')).toBe(plain.choices[index].message.content);
      expect(ofChoice.at(-1)!.finish_reason).toBe(plain.choices[index].finish_reason);
      expect(ofChoice.slice(0, -1).every((choice: { finish_reason: unknown }) => choice.finish_reason === null)).toBe(true);
      // Concatenating the chunks' logprobs gives the non-streaming response's.
      const logprobs = ofChoice.flatMap((choice: { logprobs: { content: unknown[] } | null }) => choice.logprobs?.content ?? []);
      expect(logprobs).toEqual(plain.choices[index].logprobs.content);
    }
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(plain.usage);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('without include_usage sends no usage; errors before the stream are ordinary OpenAI errors', async () => {
    const data = await events(await post('/v1/chat/completions', { ...request, n: 1, logprobs: false, model: 'trellis-tiny', stream: true }));
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((payload) => JSON.parse(payload));
    expect(chunks.every((chunk) => !('usage' in chunk) && chunk.choices.length === 1 && chunk.choices[0].logprobs === null)).toBe(true);

    const model = await (
      await post('/v1/preview/models', { entity: null, project: 'streaming', name: 'untrained', base_model: 'trellis-tiny', return_existing: true })
    ).json() as { entity: string };
    const missing = await post('/v1/chat/completions', { ...request, model: `wandb-artifact:///${model.entity}/streaming/untrained:step3`, stream: true });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/json');
    expect(((await missing.json()) as any).error).toMatchObject({ type: 'not_found_error', param: 'model' });
  });
});
