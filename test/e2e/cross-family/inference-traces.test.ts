import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import type { InferenceServices } from '../../../subgraphs/inference/services.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

/**
 * Family B → Family A: a completion served for a named project becomes a call of that project (through the
 * `inference.completions` platform events and the tracing subgraph's consumer), unless the project switched it off.
 */
let platform: TestPlatform;
let upstream: StandInUpstream;

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'traced', apiKey: 'sk-upstream' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-models-'));
  const modelsFile = path.join(dir, 'models.json');
  await writeFile(
    modelsFile,
    JSON.stringify({ models: [{ id: 'traced-chat', backend: 'openai-compatible', deployments: [{ base_url: upstream.baseUrl, api_key: 'sk-upstream' }] }] }),
  );
  platform = await startTestPlatform({ env: { TRELLIS_MODELS_FILE: modelsFile } });
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await upstream?.close();
});

async function callsOf(project: string) {
  await (platform.subgraphs.get('inference')!.services as InferenceServices).usage.flush();
  const { body } = await platform.graphql(
    `query($name: String!) { project(entity: "trellis", name: $name) {
       calls(first: 10) { nodes { opName inputs output summary exception wbUserId attributes } } } }`,
    { name: project },
  );
  return body.data.project.calls.nodes as any[];
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('completions traced into Family A', () => {
  it('records a completion for a named project as a call with messages, choice and token usage', async () => {
    await platform.graphql('mutation { ensureProject(entity: "trellis", name: "chatbot") { name } }');
    const openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, project: 'trellis/chatbot', maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'traced-chat',
      messages: [{ role: 'user', content: 'hello tracing' }],
      temperature: 0.2,
    });
    const calls = await eventually(() => callsOf('chatbot'), (nodes) => nodes.length > 0);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call.opName).toBe('inference.chat.completions/traced-chat');
    expect(call.inputs).toMatchObject({ model: 'traced-chat', messages: [{ role: 'user', content: 'hello tracing' }], temperature: 0.2 });
    expect(call.output).toMatchObject({ message: { role: 'assistant', content: completion.choices[0]!.message.content } });
    expect(call.summary.usage['traced-chat']).toEqual({
      requests: 1,
      prompt_tokens: completion.usage!.prompt_tokens,
      completion_tokens: completion.usage!.completion_tokens,
      total_tokens: completion.usage!.total_tokens,
    });
    expect(call.exception).toBeNull();
    const viewer = await platform.graphql('{ viewer { id } }');
    expect(call.wbUserId).toBe(viewer.body.data.viewer.id);
  });

  it('records nothing for a project that switched completion tracing off', async () => {
    await platform.graphql('mutation { ensureProject(entity: "trellis", name: "private") { name } }');
    const off = await platform.graphql('mutation { setInferenceTracing(entity: "trellis", project: "private", enabled: false) }');
    expect(off.body.errors).toBeUndefined();
    const openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, project: 'trellis/private', maxRetries: 0 });
    await openai.chat.completions.create({ model: 'traced-chat', messages: [{ role: 'user', content: 'not traced' }] });
    // A traced completion sent after it proves the consumer has caught up past the untraced one.
    await platform.graphql('mutation { ensureProject(entity: "trellis", name: "marker") { name } }');
    const marker = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, project: 'trellis/marker', maxRetries: 0 });
    await marker.chat.completions.create({ model: 'traced-chat', messages: [{ role: 'user', content: 'marker' }] });
    await eventually(() => callsOf('marker'), (nodes) => nodes.length > 0);
    expect(await callsOf('private')).toEqual([]);
  });
});
