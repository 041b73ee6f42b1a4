import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import { createTestDatabase } from '../../../test/support/database.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import type { InferenceServices } from '../services.js';

/**
 * Two platform processes on one database (a process per core): a catalog or trace-setting change made through one
 * reaches the other at commit (NOTIFY), not at its next poll — which is set to an hour here, so only the
 * notification can explain a change seen within the deadline.
 */
const POLL_MS = '3600000';
const DEADLINE = { timeout: 3_000, interval: 20 };

let writer: TestPlatform;
let reader: TestPlatform;
let upstream: StandInUpstream;

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'notified' });
  const databaseUrl = await createTestDatabase();
  const env = { TRELLIS_INFERENCE_CATALOG_REFRESH_MS: POLL_MS, TRELLIS_EMBEDDED_MODEL: 'off' };
  writer = await startTestPlatform({ databaseUrl, env });
  reader = await startTestPlatform({ databaseUrl, env });
});

afterAll(async () => {
  await reader?.close();
  await writer?.close();
  await upstream?.close();
});

/** The status a chat completion of `model` gets from the reader: 404 while the model is unknown to it. */
async function completionStatus(model: string): Promise<number> {
  const response = await reader.fetch('/inference/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.body?.cancel();
  return response.status;
}

describe('catalog and trace settings across two processes on one database', () => {
  it('a model registered through one process is served by the other at once, and a removed one is gone at once', async () => {
    expect(await completionStatus('notified-model')).toBe(404);
    const registered = await writer.graphql('mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id } }', {
      d: { id: 'notified-model', backend: 'OPENAI_COMPATIBLE', deployments: [{ baseUrl: upstream.baseUrl }] },
    });
    expect(registered.body.errors).toBeUndefined();
    await expect.poll(() => completionStatus('notified-model'), DEADLINE).toBe(200);

    const removed = await writer.graphql('mutation { deleteInferenceModel(id: "notified-model") }');
    expect(removed.body.data?.deleteInferenceModel).toBe(true);
    await expect.poll(() => completionStatus('notified-model'), DEADLINE).toBe(404);
  });

  it('switching a project\'s tracing off through one process is seen by the other at once', async () => {
    const settings = (reader.subgraphs.get('inference')!.services as InferenceServices).traceSettings;
    expect(settings.isEnabled('trellis', 'default')).toBe(true);
    const { body } = await writer.graphql('mutation { setInferenceTracing(entity: "trellis", project: "default", enabled: false) }');
    expect(body.errors).toBeUndefined();
    await expect.poll(() => settings.isEnabled('trellis', 'default'), DEADLINE).toBe(false);
  });
});
