import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import { connectDatabase } from '../../../platform/db/connection.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * Usage records are written off the request path, in batches; a request that succeeded must still have its record
 * after a graceful shutdown, even when no periodic flush happened in between.
 */
let platform: TestPlatform;
let upstream: StandInUpstream;
let closed = false;

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'usage' });
  platform = await startTestPlatform({ env: { TRELLIS_INFERENCE_USAGE_FLUSH_MS: '600000' } });
  const { body } = await platform.graphql('mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id } }', {
    d: { id: 'usage-model', backend: 'OPENAI_COMPATIBLE', deployments: [{ baseUrl: upstream.baseUrl }] },
  });
  expect(body.errors).toBeUndefined();
});

afterAll(async () => {
  if (!closed) await platform?.close();
  await upstream?.close();
});

it('keeps records in memory during requests and writes every one of them on shutdown', async () => {
  const client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: 'trellis/usage' });
  for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'usage-model', messages: [{ role: 'user', content: 'a b' }] });
  const stream = await client.chat.completions.create({ model: 'usage-model', messages: [{ role: 'user', content: 'c' }], stream: true });
  for await (const _chunk of stream) {
    // drain
  }
  await client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }).catch(() => undefined);

  // Nothing written yet: the records wait in the batch (no periodic flush within 10 minutes).
  const written = await platform.db.root
    .selectFrom('inference.usage_records')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  expect(Number(written.n)).toBe(0);

  await platform.close();
  closed = true;
  const db = connectDatabase(platform.databaseUrl, { max: 1 });
  try {
    const rows = await db.root
      .selectFrom('inference.usage_records')
      .select(['project', 'model', 'status', 'stream', 'prompt_tokens', 'completion_tokens'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { project: 'usage', model: 'usage-model', status: 200, stream: false, prompt_tokens: 2, completion_tokens: 6 },
      { project: 'usage', model: 'usage-model', status: 200, stream: false, prompt_tokens: 2, completion_tokens: 6 },
      { project: 'usage', model: 'usage-model', status: 200, stream: false, prompt_tokens: 2, completion_tokens: 6 },
      { project: 'usage', model: 'usage-model', status: 200, stream: true, prompt_tokens: 1, completion_tokens: 6 },
      { project: 'usage', model: 'nope', status: 404, stream: false, prompt_tokens: 0, completion_tokens: 0 },
    ]);
  } finally {
    await db.close();
  }
});
