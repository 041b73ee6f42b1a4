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

    const calls = await tracedCalls(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ opName: 'inference.chat.completions/trellis-tiny', inputs: { metadata: { expected: '4', source: 'loop' } } });
  });

  it('is refused as OpenAI refuses it (a value that is not text, a key over 64 characters, more than 16 keys), and nothing is traced', async () => {
    const openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: 'trellis/tagged' });
    const longKey = 'k'.repeat(65);
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    const cases: [unknown, string, string][] = [
      [{ expected: 4 }, 'metadata.expected', 'Input should be a valid string'],
      [{ [longKey]: 'v' }, `metadata.${longKey}.[key]`, 'String should have at most 64 characters'],
      [tooMany, 'metadata', 'Dictionary should have at most 16 items'],
    ];
    for (const [metadata, param, message] of cases) {
      const refused = await openai.chat.completions
        .create({ model: 'trellis-tiny', messages: [{ role: 'user', content: 'refused' }], metadata: metadata as Record<string, string>, max_tokens: 1 })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect(refused).toMatchObject({ status: 400, param, code: 'invalid_request' });
      expect((refused as Error).message).toContain(message);
    }
    // A completion after them is traced; the refused ones never are (the project has the first test's call and this one).
    await openai.chat.completions.create({ model: 'trellis-tiny', messages: [{ role: 'user', content: 'accepted' }], metadata: { n: '1' }, max_tokens: 1 });
    const calls = await tracedCalls(2);
    expect(calls.map((call) => call.inputs.messages[0]!.content)).toEqual(['How many letters are in "kamo"?', 'accepted']);
  });
});

async function tracedCalls(count: number): Promise<{ opName: string; inputs: { metadata?: unknown; messages: { content: string }[] } }[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await platform.graphql('{ project(entity: "trellis", name: "tagged") { calls(first: 10, sortBy: [{ field: "started_at", direction: ASC }]) { nodes { opName inputs } } } }');
    const calls = body.data.project.calls.nodes;
    if (calls.length >= count || Date.now() > deadline) return calls;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
