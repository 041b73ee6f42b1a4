import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBGRAPHS } from '../../index.js';
import type { EmbeddedModelRuntime } from '../../inference/backends/embedded/embedded-runtime.js';
import { defineInferenceSubgraph } from '../../inference/index.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * Training's chat completions are a path to a model like inference's: admitted by the same per-key and per-project
 * limiter (a key that used up its requests per minute on /inference/v1 is refused here too) and counted in the same
 * usage (`inferenceUsage`), under the checkpoint's project and model name.
 */
let platform: TestPlatform;

/** Inference's embedded model, answering one word at once: only its admissions matter here. */
const oneWord: EmbeddedModelRuntime = {
  defaultModel: { id: 'trellis-tiny', root: 'trellis-tiny' },
  async generate(_model, _options, onToken) {
    onToken?.({ index: 0, text: 'ok' });
    return { choices: [{ text: 'ok', finishReason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } };
  },
};

beforeAll(async () => {
  const subgraphs = SUBGRAPHS.map((module) => (module.name === 'inference' ? defineInferenceSubgraph({ embeddedRuntime: () => oneWord }) : module));
  platform = await startTestPlatform({ subgraphs, env: { TRELLIS_INFERENCE_KEY_RPM: '2', TRELLIS_INFERENCE_USAGE_FLUSH_MS: '50' } });
});
afterAll(async () => {
  await platform?.close();
});

const post = (path: string, key: string, body: unknown) =>
  platform.fetch(path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const chat = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'Name a city.' }],
  max_tokens: 2,
  temperature: 0,
  ...extra,
});

describe('training chat completions under the model limits', () => {
  it('are refused with 429 and Retry-After once the key used up its requests on /inference/v1 (REST, streaming and GraphQL)', async () => {
    const { key } = await platform.createUser('rate-limited', { trellis: 'MEMBER' });
    for (let i = 0; i < 2; i++) expect((await post('/inference/v1/chat/completions', key, chat('trellis-tiny'))).status).toBe(200);
    expect((await post('/inference/v1/chat/completions', key, chat('trellis-tiny'))).status).toBe(429);

    const refused = await post('/training/v1/chat/completions', key, chat('trellis-tiny'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as any).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });

    const streamed = await post('/training/v1/chat/completions', key, chat('trellis-tiny', { stream: true }));
    expect(streamed.status).toBe(429);
    expect(streamed.headers.get('retry-after')).toBeTruthy();

    const graphql = await platform.graphql(
      'mutation($r: ChatCompletionRequestInput!) { createTrainingChatCompletion(request: $r) { id } }',
      { r: { model: 'trellis-tiny', messages: [{ role: 'USER', content: 'Name a city.' }], maxTokens: 2, temperature: 0 } },
      key,
    );
    expect(graphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('are counted in inferenceUsage under the checkpoint\'s project and model name', async () => {
    const { key } = await platform.createUser('counted', { trellis: 'MEMBER' });
    const model = await post('/training/v1/preview/models', key, { entity: 'trellis', project: 'chat-usage', name: 'agent', base_model: 'trellis-tiny', return_existing: true });
    expect(model.status).toBe(200);
    // Not trained yet: `latest` serves the base model.
    const name = 'wandb-artifact:///trellis/chat-usage/agent';
    const plain = await post('/training/v1/chat/completions', key, chat(name));
    expect(plain.status).toBe(200);
    const completion = (await plain.json()) as any;
    const streamed = await post('/training/v1/chat/completions', key, chat(name, { stream: true }));
    expect(streamed.status).toBe(200);
    await streamed.text();

    const query = `{ project(entity: "trellis", name: "chat-usage") {
      inferenceUsage(groupBy: [MODEL, STATUS]) { model status requests promptTokens completionTokens }
      inferenceUsageRecords(first: 10) { nodes { model stream status backend } }
    } }`;
    const deadline = Date.now() + 10_000;
    let project: any;
    do {
      await new Promise((resolve) => setTimeout(resolve, 50));
      project = (await platform.graphql(query)).body.data.project;
    } while (project.inferenceUsageRecords.nodes.length < 2 && Date.now() < deadline);
    expect(project.inferenceUsage).toEqual([
      { model: name, status: 200, requests: 2, promptTokens: 2 * completion.usage.prompt_tokens, completionTokens: expect.any(Number) },
    ]);
    expect(project.inferenceUsageRecords.nodes.map((record: any) => record.stream).sort()).toEqual([false, true]);
    expect(project.inferenceUsageRecords.nodes[0]).toMatchObject({ model: name, status: 200, backend: 'training' });
  });
});
