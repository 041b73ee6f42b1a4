import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { eventually, ok, TEST_ENV } from '../../automations/test/helpers.js';

/**
 * Deleting a promoted checkpoint — by ART's DELETE route, or with its whole model through the graph — takes its
 * named alias with it everywhere: training drops it, announces it (training.checkpoint_aliases_removed), and the
 * registry removes the same alias from the checkpoint's artifact version, so inference's
 * `{entity}/{project}/{model}:production` (the real OpenAI SDK on /inference/v1) answers OpenAI's 404 instead of
 * serving the deleted checkpoint. Each model gets one SFT job (one checkpoint).
 */
let platform: TestPlatform;
const PROMPT = [{ role: 'user' as const, content: 'Name a capital.' }];

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
  const lines = ['Paris', 'Rome', 'Oslo', 'Lima'].map((city) => JSON.stringify({ messages: [...PROMPT, { role: 'assistant', content: city }] }));
  const upload = await platform.rest('POST', '/registry/v1/artifacts/trellis/demote/capitals', {
    files: [{ path: 'train.jsonl', content_base64: Buffer.from(`${lines.join('\n')}\n`).toString('base64') }],
  });
  expect(upload.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await platform?.close();
});

/** A model with one trained checkpoint promoted to `production`, served by inference; its id and step. */
async function promotedModel(name: string): Promise<{ modelId: string; step: number }> {
  const created = await platform.rest('POST', '/training/v1/preview/models', { project: 'demote', name, base_model: 'trellis-tiny' });
  expect(created.status).toBe(200);
  const modelId = created.body.id as string;
  const submitted = await platform.rest('POST', '/training/v1/preview/sft-training-jobs', {
    model_id: modelId,
    training_data_url: 'wandb-artifact:///trellis/demote/capitals:v0',
    config: { batch_size: 2, learning_rate: 0.05 },
  });
  expect(submitted.status).toBe(200);
  await eventually(async () => ((await platform.rest('GET', `/training/v1/preview/training-jobs/${submitted.body.id}`)).body.status === 'SUCCEEDED' ? true : undefined), 120_000);
  const data = await ok(platform, `query($id: ID!) { trainingModel(id: $id) { checkpoints { nodes { step } } } }`, { id: modelId });
  const step = data.trainingModel.checkpoints.nodes[0].step as number;
  await ok(platform, `mutation($id: ID!, $input: TrainingCheckpointPromoteInput!) { promoteTrainingCheckpoint(modelId: $id, input: $input) { step } }`, {
    id: modelId,
    input: { step, alias: 'production' },
  });
  // Served once the registry has recorded the promotion.
  await eventually(async () => ((await answers(`trellis/demote/${name}:production`)) === 200 ? true : undefined), 20_000);
  return { modelId, step };
}

const openai = () => new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: 'trellis/demote' });

/** The HTTP status of a chat completion of `model` through the OpenAI SDK (200, or the APIError's status). */
async function answers(model: string): Promise<number> {
  try {
    await openai().chat.completions.create({ model, messages: PROMPT, max_tokens: 4, temperature: 0, seed: 7 });
    return 200;
  } catch (error) {
    if (error instanceof OpenAI.APIError && error.status !== undefined) return error.status;
    throw error;
  }
}

/** Waits for the name to answer 404 and returns the SDK's error for it. */
async function notFound(model: string): Promise<InstanceType<typeof OpenAI.NotFoundError>> {
  await eventually(async () => ((await answers(model)) === 404 ? true : undefined), 15_000);
  const error = await openai()
    .chat.completions.create({ model, messages: PROMPT, max_tokens: 4 })
    .then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  return error as InstanceType<typeof OpenAI.NotFoundError>;
}

/** The registry's artifact version of the model's checkpoint by a version name (null: none). */
async function registryVersion(collection: string, version: string): Promise<unknown> {
  const data = await ok(
    platform,
    `query($c: String!, $v: String) { artifactVersionByName(entity: "trellis", project: "demote", collection: $c, version: $v) { id } }`,
    { c: collection, v: version },
  );
  return data.artifactVersionByName;
}

describe('deleting a promoted checkpoint', () => {
  it('ART DELETE /training/v1/preview/models/{id}/checkpoints: inference stops serving {entity}/{project}/{model}:production', async () => {
    const { modelId, step } = await promotedModel('demote-checkpoint');
    const deleted = await platform.rest('DELETE', `/training/v1/preview/models/${modelId}/checkpoints`, { steps: [step] });
    expect(deleted.status).toBe(200);
    const error = await notFound('trellis/demote/demote-checkpoint:production');
    expect(error.error).toMatchObject({ type: expect.any(String), message: expect.stringContaining('demote-checkpoint:production') });
    // Nor under any other name of the deleted checkpoint: its registry version is gone.
    for (const alias of [`step${step}`, 'latest', 'v0']) await notFound(`trellis/demote/demote-checkpoint:${alias}`);
    expect(await registryVersion('demote-checkpoint', `step${step}`)).toBeNull();
    // Training's name for it is gone too.
    const training = await platform.rest('POST', '/training/v1/chat/completions', { model: 'wandb-artifact:///trellis/demote/demote-checkpoint:production', messages: PROMPT });
    expect(training.status).toBe(404);
  }, 180_000);

  it('deleteTrainingModel: inference stops serving {entity}/{project}/{model}:production', async () => {
    const { modelId } = await promotedModel('demote-model');
    const deleted = await ok(platform, `mutation($id: ID!) { deleteTrainingModel(id: $id) { modelId deletedCheckpoints } }`, { id: modelId });
    expect(deleted.deleteTrainingModel).toEqual({ modelId, deletedCheckpoints: 1 });
    await notFound('trellis/demote/demote-model:production');
    for (const alias of ['latest', 'v0']) await notFound(`trellis/demote/demote-model:${alias}`);
  }, 180_000);
});
