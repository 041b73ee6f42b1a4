import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { eventually, ok } from '../../automations/test/helpers.js';

/**
 * trainingServedModel through the public graph: what training chat would answer a model name with, resolved from
 * training's own checkpoints as createTrainingChatCompletion resolves it — a base model alone, step0 and latest before
 * any training as the base model, step<N>, latest and a promoted alias as the checkpoint — and the same errors for
 * what training chat refuses (an unknown step, alias or model, an alias of no known form, an outsider).
 */
const PROJECT = 'served';
const MODEL = 'served-model';
const PREFIX = `wandb-artifact:///trellis/${PROJECT}/${MODEL}`;
const PROMPT = 'Name a capital.';
let platform: TestPlatform;
let modelId: string;

const SERVED = `query($model: String!) { trainingServedModel(model: $model) { model baseModel checkpointStep } }`;
const served = (model: string, key?: string) => platform.graphql(SERVED, { model }, key);

beforeAll(async () => {
  platform = await startTestPlatform();
  modelId = (await platform.rest('POST', '/training/v1/preview/models', { project: PROJECT, name: MODEL, base_model: 'trellis-tiny' })).body.id;
}, 60_000);

afterAll(async () => {
  await platform?.close();
});

describe('trainingServedModel', () => {
  it('names the base model for a base model, and for step0 and latest before the model trained', async () => {
    expect((await ok(platform, SERVED, { model: 'trellis-tiny' })).trainingServedModel).toEqual({ model: 'trellis-tiny', baseModel: 'trellis-tiny', checkpointStep: null });
    for (const alias of ['step0', 'latest']) {
      expect((await ok(platform, SERVED, { model: `${PREFIX}:${alias}` })).trainingServedModel).toMatchObject({ baseModel: 'trellis-tiny', checkpointStep: null });
    }
  });

  it('names the checkpoint for step<N>, latest and a promoted alias once a job succeeded', async () => {
    const lines = ['Paris', 'Rome'].map((city) => JSON.stringify({ messages: [{ role: 'user', content: PROMPT }, { role: 'assistant', content: city }] }));
    const upload = await platform.rest('POST', `/registry/v1/artifacts/trellis/${PROJECT}/sft-data`, {
      files: [{ path: 'train.jsonl', content_base64: Buffer.from(`${lines.join('\n')}\n`).toString('base64') }],
    });
    expect(upload.status).toBe(200);
    const submitted = await platform.rest('POST', '/training/v1/preview/sft-training-jobs', {
      model_id: modelId,
      training_data_url: `wandb-artifact:///trellis/${PROJECT}/sft-data:v0`,
      config: { batch_size: 2, learning_rate: 0.05 },
    });
    expect(submitted.status).toBe(200);
    await eventually(async () => ((await platform.rest('GET', `/training/v1/preview/training-jobs/${submitted.body.id}`)).body.status === 'SUCCEEDED' ? true : undefined), 120_000);
    const step = (await ok(platform, `query($id: ID!) { trainingModel(id: $id) { checkpoints(order: DESC, first: 1) { nodes { step } } } }`, { id: modelId }))
      .trainingModel.checkpoints.nodes[0].step as number;
    await ok(platform, `mutation($id: ID!) { promoteTrainingCheckpoint(modelId: $id, input: { step: ${step}, alias: "production" }) { aliases } }`, { id: modelId });

    for (const alias of [`step${step}`, 'latest', 'production']) {
      expect((await ok(platform, SERVED, { model: `${PREFIX}:${alias}` })).trainingServedModel).toEqual({
        model: `${PREFIX}:${alias}`,
        baseModel: 'trellis-tiny',
        checkpointStep: step,
      });
    }
  }, 150_000);

  it('refuses what training chat refuses, with its codes', async () => {
    const refused = async (model: string, key?: string) => {
      const response = await served(model, key);
      expect(response.body.data).toBeNull();
      return { code: response.body.errors[0].extensions.code, message: response.body.errors[0].message };
    };
    expect(await refused(`${PREFIX}:step999`)).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('has no checkpoint at step 999') });
    expect(await refused(`${PREFIX}:staging`)).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('has no checkpoint promoted to "staging"') });
    expect(await refused(`wandb-artifact:///trellis/${PROJECT}/no-such-model:latest`)).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refused('no-such-base-model')).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refused(`${PREFIX}:1bad`)).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining('Unknown checkpoint alias "1bad"') });
    const outsider = await platform.createUser('served-outsider', { outsiders: 'ADMIN' });
    expect(await refused(`${PREFIX}:latest`, outsider.key)).toMatchObject({ code: 'FORBIDDEN' });
  });
});
