import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';
import { artClient, type ArtRequest } from './art-wire.js';

/**
 * An empty body with `content-type: application/json` is no body, on every route of every family (the HTTP edge's
 * JSON parser, platform/http/json-body-parser.ts): the OpenAI SDKs send that header on body-less requests, so ART's
 * `models.delete` and a body-less cancel must work, while a route that needs a body answers its usual error for a
 * missing one — not "Body cannot be empty when content-type is set to 'application/json'".
 */
let platform: TestPlatform;
let art: ArtRequest;

beforeAll(async () => {
  // No queue workers: the job below must still be QUEUED when it is cancelled.
  platform = await startTestPlatform({ workers: false });
  art = artClient(platform);
});
afterAll(() => platform?.close());

/** A request with `content-type: application/json` and nothing after it (`Content-Length: 0`). */
async function emptyJson(method: string, path: string) {
  const response = await platform.fetch(path, {
    method,
    headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
    body: '',
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('an empty JSON body is no body', () => {
  it('training: ART deletes a model and cancels a job with the header and no body', async () => {
    const model = await art('POST', '/preview/models', { entity: null, project: 'empty-body', name: 'agent', base_model: 'trellis-tiny', return_existing: true });
    expect(model.status).toBe(200);
    const job = await art('POST', '/preview/training-jobs', {
      model_id: model.body.id,
      trajectory_groups: [{ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'hi' }, { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'yo' } }], reward: 1 }] }],
      experimental_config: { allow_training_without_logprobs: true },
    });
    expect(job.status).toBe(200);

    // POST …/cancel with Content-Length: 0.
    const cancelled = await art('POST', `/preview/training-jobs/${job.body.id}/cancel`);
    expect(cancelled).toMatchObject({ status: 200, body: { id: job.body.id, status: 'CANCELLED' } });

    // DELETE …/models/{id} without a Content-Length, as httpx sends it.
    const deleted = await art('DELETE', `/preview/models/${model.body.id}`);
    expect(deleted).toEqual({ status: 200, body: { model_id: model.body.id, deleted_checkpoints: 0, deleted_run: true } });
    expect((await art('GET', `/preview/models/${model.body.id}/checkpoints`)).status).toBe(404);
  });

  it('training: a route that needs a body answers its validation error for the missing body', async () => {
    const missing = await emptyJson('POST', '/training/v1/preview/models');
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ['body'] })]);
    expect(missing.body.detail[0].type).not.toBe('json_invalid');
    expect(JSON.stringify(missing.body)).not.toMatch(/cannot be empty/i);
  });

  it('tracing: the same missing-body validation error in FastAPI shape', async () => {
    const missing = await emptyJson('POST', '/traces/call/start');
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ['body'] })]);
    expect(missing.body.detail[0].type).not.toBe('json_invalid');
    expect(JSON.stringify(missing.body)).not.toMatch(/cannot be empty/i);
  });

  it('inference: a missing body is an OpenAI 400 about the request, not a JSON parse error', async () => {
    const missing = await emptyJson('POST', '/inference/v1/chat/completions');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(missing.body.error.message).not.toMatch(/could not parse|cannot be empty/i);
  });

  it('malformed JSON is still refused as before', async () => {
    const broken = await platform.fetch('/training/v1/preview/models', {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: '{"project":',
    });
    expect(broken.status).toBe(422);
    expect(((await broken.json()) as any).detail[0].type).toBe('json_invalid');
  });
});
