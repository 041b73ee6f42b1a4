import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBGRAPHS } from '../../index.js';
import type {
  EmbeddedGenerateOptions,
  EmbeddedGeneration,
  EmbeddedModelRuntime,
  EmbeddedTokenEvent,
} from '../backends/embedded/embedded-runtime.js';
import { defineInferenceSubgraph } from '../index.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * The embedded backend adapter against the runtime API the integrator specified. The real runtime is on another
 * branch; this runtime follows the same contract deterministically (it answers with the last user message
 * reversed word by word, one token per word), so what is checked is the adapter: request mapping, chunk order,
 * usage, refused parameters and errors — through the whole platform.
 */
class InvalidRequestError extends Error {
  override name = 'InvalidRequestError';
}

class ReversingRuntime implements EmbeddedModelRuntime {
  readonly defaultModel = { id: 'trellis-tiny', root: 'trellis-tiny-base' };
  readonly calls: { model: string; options: EmbeddedGenerateOptions }[] = [];

  async generate(model: string, options: EmbeddedGenerateOptions, onToken?: (event: EmbeddedTokenEvent) => void): Promise<EmbeddedGeneration> {
    this.calls.push({ model, options });
    const last = options.messages.at(-1)?.content ?? '';
    if (last.includes('overflow')) throw new InvalidRequestError('prompt is longer than the context window (2048 tokens)');
    const words = last.split(/\s+/).filter(Boolean).reverse();
    const limit = options.max_tokens ?? words.length;
    const n = options.n ?? 1;
    const choices = [];
    for (let index = 0; index < n; index++) {
      const tokens = words.slice(0, limit).map((word, i) => (i === 0 ? word : ` ${word}`));
      for (const text of tokens) {
        if (options.signal?.aborted) throw new Error('cancelled');
        onToken?.({ index, text });
        await new Promise((resolve) => setImmediate(resolve));
      }
      choices.push({ text: tokens.join(''), finishReason: (limit < words.length ? 'length' : 'stop') as 'stop' | 'length' });
    }
    return { choices, usage: { prompt_tokens: options.messages.length * 3, completion_tokens: Math.min(limit, words.length) * n } };
  }
}

const runtime = new ReversingRuntime();
let platform: TestPlatform;
const sdk = () => new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${platform.url}/inference/v1`, maxRetries: 0 });

beforeAll(async () => {
  const subgraphs = SUBGRAPHS.map((module) => (module.name === 'inference' ? defineInferenceSubgraph({ embeddedRuntime: () => runtime }) : module));
  platform = await startTestPlatform({ subgraphs });
});
afterAll(() => platform?.close());

describe('embedded backend', () => {
  it('lists the runtime\'s model out of the box, with no catalog configured', async () => {
    const models = await sdk().models.list();
    expect(models.data).toEqual([{ id: 'trellis-tiny', object: 'model', created: expect.any(Number), owned_by: 'trellis', root: 'trellis-tiny-base' }]);
  });

  it('maps an OpenAI request onto generate() and the result back', async () => {
    const completion = await sdk().chat.completions.create({
      model: 'trellis-tiny',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'one two three' }] }],
      max_completion_tokens: 2,
      stop: 'END',
      seed: 3,
      temperature: 0.5,
      n: 2,
    });
    expect(runtime.calls.at(-1)).toMatchObject({
      model: 'trellis-tiny-base',
      options: { messages: [{ role: 'user', content: 'one two three' }], max_tokens: 2, stop: ['END'], seed: 3, temperature: 0.5, n: 2 },
    });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'trellis-tiny',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'three two' }, finish_reason: 'length' },
        { index: 1, message: { role: 'assistant', content: 'three two' }, finish_reason: 'length' },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it('streams one chunk per token, then the finish and (when asked) the usage chunk', async () => {
    const stream = await sdk().chat.completions.create({
      model: 'trellis-tiny',
      messages: [{ role: 'user', content: 'alpha beta gamma' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'gamma' },
      { content: ' beta' },
      { content: ' alpha' },
      {},
      null,
    ]);
    expect(chunks[4]!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks[5]!.usage).toEqual({ prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
  });

  it('refuses, naming it, a parameter the runtime cannot honour, and content it cannot read', async () => {
    const tools = await sdk()
      .chat.completions.create({
        model: 'trellis-tiny',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function', function: { name: 'f' } }],
      })
      .catch((e: unknown) => e);
    expect(tools).toBeInstanceOf(OpenAI.BadRequestError);
    expect((tools as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tools');
    expect((tools as Error).message).toContain("Model 'trellis-tiny' does not support the parameter 'tools'");

    const image = await sdk()
      .chat.completions.create({
        model: 'trellis-tiny',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }],
      })
      .catch((e: unknown) => e);
    expect((image as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages.0.content');
  });

  it('answers the runtime\'s request errors with 400', async () => {
    const error = await sdk()
      .chat.completions.create({ model: 'trellis-tiny', messages: [{ role: 'user', content: 'overflow' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('context window');
  });
});
