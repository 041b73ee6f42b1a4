import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

/**
 * A fresh installation with no model configuration answers offline: the shipped model, served by the embedded
 * runtime's worker threads, through the OpenAI SDK.
 */
let platform: TestPlatform;
let openai: OpenAI;

beforeAll(async () => {
  platform = await startTestPlatform();
  openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0 });
}, 120_000);
afterAll(() => platform?.close());

describe('embedded model out of the box', () => {
  it('lists the shipped model', async () => {
    const models = await openai.models.list();
    expect(models.data).toContainEqual(expect.objectContaining({ id: 'trellis-tiny', object: 'model', owned_by: 'trellis', root: 'trellis-tiny' }));
  });

  it('answers chat completions, deterministically for a seed, with logprobs', async () => {
    const ask = () =>
      openai.chat.completions.create({
        model: 'trellis-tiny',
        messages: [{ role: 'user', content: 'What is the capital of France?' }],
        seed: 7,
        temperature: 0.8,
        max_tokens: 16,
        logprobs: true,
      });
    const first = await ask();
    const second = await ask();
    expect(first.object).toBe('chat.completion');
    expect(first.choices[0]!.message.role).toBe('assistant');
    expect(first.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(second.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    expect(first.usage!.prompt_tokens).toBeGreaterThan(5);
    expect(first.usage!.total_tokens).toBe(first.usage!.prompt_tokens + first.usage!.completion_tokens);
    const logprobs = first.choices[0]!.logprobs!.content!;
    expect(logprobs.length).toBeGreaterThan(0);
    expect(logprobs.every((entry) => entry.logprob <= 0)).toBe(true);
  });

  it('streams tokens and refuses parameters it cannot honour', async () => {
    const stream = await openai.chat.completions.create({
      model: 'trellis-tiny',
      messages: [{ role: 'user', content: 'Count to three.' }],
      stream: true,
      max_tokens: 12,
      seed: 1,
    });
    let text = '';
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(chunks).toBeGreaterThan(2);
    expect(text.length).toBeGreaterThan(0);
    await expect(
      openai.chat.completions.create({
        model: 'trellis-tiny',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
      }),
    ).rejects.toMatchObject({ status: 400 });
  });
});
