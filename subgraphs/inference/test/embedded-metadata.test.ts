import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * OpenAI's `metadata` on a chat completion (developer-defined tags, e.g. the expected answer an evaluation or a
 * monitor compares with) asks nothing of the model, so the embedded model takes it as OpenAI does — it was refused
 * with 400 "does not support the parameter 'metadata'" — and the traced call keeps it in its inputs, where a monitor
 * reads it (`inputs.metadata.expected`). Real embedded model, real OpenAI SDK, the call read back through the graph.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
  const { body } = await platform.graphql('mutation { createProject(entity: "trellis", name: "tagged") { fullName } }');
  expect(body.errors).toBeUndefined();
});
afterAll(() => platform?.close());

describe('metadata on the embedded model', () => {
  it('is accepted and recorded in the traced call, as OpenAI records it with the completion', async () => {
    const openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: 'trellis/tagged' });
    const completion = await openai.chat.completions.create({
      model: 'trellis-tiny',
      messages: [{ role: 'user', content: 'How many letters are in "kamo"?' }],
      metadata: { expected: '4', source: 'loop' },
      max_tokens: 2,
      temperature: 0,
    });
    expect(completion.choices[0]!.message.content).toEqual(expect.any(String));

    const deadline = Date.now() + 20_000;
    let calls: { opName: string; inputs: { metadata?: unknown } }[] = [];
    while (calls.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { body } = await platform.graphql('{ project(entity: "trellis", name: "tagged") { calls(first: 5) { nodes { opName inputs } } } }');
      calls = body.data.project.calls.nodes;
    }
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ opName: 'inference.chat.completions/trellis-tiny', inputs: { metadata: { expected: '4', source: 'loop' } } });
  });
});
