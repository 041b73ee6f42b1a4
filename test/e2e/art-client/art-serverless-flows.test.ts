import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';
import type { TrainingServices } from '../../../subgraphs/training/services.js';
import { artClient, getStep, inferenceName, pollJobEvents, type ArtRequest } from './art-wire.js';

/**
 * The OpenPipe ART client's (0.5.18) ServerlessBackend flows, request by request as its source sends them
 * (art/serverless/client.py and backend.py; the docs' RL loop and the serverless integration test):
 * - register → POST /preview/models {entity: null, project, name, base_model, return_existing: true};
 * - get_step → GET …/checkpoints?limit=1&order=desc (0 without checkpoints), rollouts sample
 *   `wandb-artifact:///{entity}/{project}/{name}:step{N}` — `:step0` for a new model — without logprobs;
 * - train → POST …/log {model_id, trajectory_groups, split: "train"}, POST /preview/training-jobs with the
 *   experimental_config ART builds (allow_training_without_logprobs: false), poll the events, read the new step;
 * - train_sft_from_file → upload train.jsonl as a dataset artifact, POST /preview/sft-training-jobs with
 *   `config.learning_rate` a list, one rate per batch;
 * - delete → DELETE /preview/models/{id} with `content-type: application/json` and no body.
 */
let platform: TestPlatform;
let art: ArtRequest;
let training: TrainingServices;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { TRELLIS_TRAINING_HEARTBEAT_MS: '200' } });
  art = artClient(platform);
  training = platform.subgraphs.get('training')!.services as TrainingServices;
});
afterAll(() => platform?.close());

type Model = { id: string; entity: string; project: string; name: string; base_model: string };

async function register(name: string, baseModel = 'trellis-tiny') {
  return art('POST', '/preview/models', { entity: null, project: 'art-flows', name, base_model: baseModel, return_existing: true });
}

/** What ServerlessBackend._train_model sends as experimental_config (dev_config unset: every field null but these). */
function artExperimentalConfig(learningRate: number) {
  return {
    advantage_balance: null,
    allow_training_without_logprobs: false,
    epsilon: null,
    epsilon_high: null,
    importance_sampling_level: null,
    kimi_k2_tau: null,
    kl_penalty_coef: null,
    learning_rate: learningRate,
    mask_prob_ratio: null,
    max_negative_advantage_importance_sampling_weight: null,
    ppo: null,
    precalculate_logprobs: null,
    scale_rewards: null,
  };
}

/**
 * The docs' rollout: one chat completion per trajectory from the model's current step, without logprobs; the
 * Choice goes back verbatim. Rewards are the test's own, distinct within a group (equal rewards teach nothing).
 */
async function rollouts(model: Model, step: number, groups: number, perGroup: number) {
  const result = [];
  for (let g = 0; g < groups; g++) {
    const messages = [{ role: 'user', content: `Name a colour, ${g}.` }];
    const trajectories = [];
    for (let t = 0; t < perGroup; t++) {
      const completion = await art('POST', '/chat/completions', {
        model: inferenceName(model, step),
        messages,
        max_tokens: 6,
        temperature: 1,
        seed: 100 * step + 10 * g + t,
      });
      expect(completion.status, JSON.stringify(completion.body)).toBe(200);
      const choice = completion.body.choices[0];
      expect(choice.logprobs).toBeNull();
      trajectories.push({ messages_and_choices: [...messages, choice], reward: t / perGroup, metrics: {}, metadata: {}, logs: [] });
    }
    result.push({ trajectories, exceptions: [], metadata: {}, metrics: {}, logs: [] });
  }
  return result;
}

/** model.train(groups): log the groups as `train`, create the job, wait for its end, read the new step. */
async function train(model: Model, groups: unknown[], experimentalConfig: Record<string, unknown>) {
  expect((await art('POST', `/preview/models/${model.id}/log`, { model_id: model.id, trajectory_groups: groups, split: 'train' })).status).toBe(200);
  const job = await art('POST', '/preview/training-jobs', { model_id: model.id, trajectory_groups: groups, experimental_config: experimentalConfig });
  expect(job.status, JSON.stringify(job.body)).toBe(200);
  const events = await pollJobEvents(art, job.body.id);
  return { jobId: job.body.id as string, events, step: await getStep(art, model.id) };
}

describe('ART ServerlessBackend against the training API', () => {
  it('refuses a model on a base model nothing here can train, naming the ones that can; return_existing still works', async () => {
    const refused = await register('qwen-agent', 'OpenPipe/Qwen3-14B-Instruct');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'base_model' });
    expect(refused.body.error.message).toContain('OpenPipe/Qwen3-14B-Instruct');
    expect(refused.body.error.message).toContain('trellis-tiny');
    expect(await training.store.modelByName('trellis', 'art-flows', 'qwen-agent')).toBeUndefined();

    // ART registers the same model on every run: return_existing answers the one created first.
    const first = await register('returning-agent');
    const again = await register('returning-agent');
    expect(first.status).toBe(200);
    expect(again).toEqual({ status: 200, body: first.body });

    // A model created before this rule on a base model that cannot be trained is still returned, not refused.
    await training.store.transaction((trx) =>
      training.store.insertModel(trx, { entity: 'trellis', project: 'art-flows', name: 'legacy', base_model: 'OpenPipe/Qwen3-14B-Instruct' }),
    );
    const legacy = await register('legacy', 'OpenPipe/Qwen3-14B-Instruct');
    expect(legacy).toMatchObject({ status: 200, body: { name: 'legacy', base_model: 'OpenPipe/Qwen3-14B-Instruct' } });
  });

  it('runs the RL loop from step 0 without logprobs: the platform scores them, the loss moves, checkpoints appear, step 0 stays the base model', async () => {
    const registered = await register('rl-agent');
    expect(registered.status).toBe(200);
    const model = registered.body as Model;

    // A new model is at step 0, and step 0 is the base model: the same answer as `trellis-tiny` for the same seed.
    expect(await getStep(art, model.id)).toBe(0);
    const probe = { messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 8, temperature: 1, seed: 7 };
    const baseAnswer = await art('POST', '/chat/completions', { ...probe, model: 'trellis-tiny' });
    const stepZeroBefore = await art('POST', '/chat/completions', { ...probe, model: inferenceName(model, 0) });
    expect(stepZeroBefore.status, JSON.stringify(stepZeroBefore.body)).toBe(200);
    expect(stepZeroBefore.body.model).toBe(inferenceName(model, 0));
    expect(stepZeroBefore.body.choices[0].message.content).toBe(baseAnswer.body.choices[0].message.content);

    // Two iterations of the docs loop, each sampling the current step without logprobs.
    const losses: number[] = [];
    for (const expectedStep of [1, 2]) {
      const step = await getStep(art, model.id);
      const groups = await rollouts(model, step, 2, 3);
      const result = await train(model, groups, artExperimentalConfig(3e-3));
      expect(result.events.map((event) => event.type)).toEqual(['training_started', 'gradient_step', 'training_ended']);
      const gradientStep = result.events[1]!.data;
      expect(Number.isFinite(gradientStep.loss)).toBe(true);
      expect(gradientStep.num_trainable_tokens).toBeGreaterThan(0);
      losses.push(gradientStep.loss);
      expect(result.step).toBe(expectedStep);
    }
    expect(losses[0]).not.toBe(losses[1]);

    // The job records ART's config as sent.
    const jobs = await art('GET', `/preview/models/${model.id}/training-jobs`);
    const recorded = await platform.graphql('query($id: ID!) { trainingJob(id: $id) { config } }', { id: jobs.body.data[0].id });
    expect(recorded.body.data.trainingJob.config).toMatchObject({ experimental_config: { allow_training_without_logprobs: false, learning_rate: 3e-3 } });

    // Checkpoints 1 and 2 exist and serve; step 0 is still the base model after training (ART's integration test).
    const checkpoints = await art('GET', `/preview/models/${model.id}/checkpoints`);
    expect(checkpoints.body.data.map((checkpoint: { step: number }) => checkpoint.step)).toEqual([1, 2]);
    expect((await art('POST', '/chat/completions', { ...probe, model: inferenceName(model, 2) })).status).toBe(200);
    const stepZeroAfter = await art('POST', '/chat/completions', { ...probe, model: inferenceName(model, 0) });
    expect(stepZeroAfter.status).toBe(200);
    expect(stepZeroAfter.body.choices[0].message.content).toBe(baseAnswer.body.choices[0].message.content);
    // The two-slash form names the same checkpoint.
    const twoSlashes = await art('POST', '/chat/completions', { ...probe, model: `wandb-artifact://${model.entity}/${model.project}/${model.name}:step0` });
    expect(twoSlashes.body.choices[0].message.content).toBe(baseAnswer.body.choices[0].message.content);
    // Steps that never existed are still unknown.
    expect((await art('POST', '/chat/completions', { ...probe, model: inferenceName(model, 9) })).status).toBe(404);

    // backend.delete(model): DELETE with the SDK's content-type and no body.
    const deleted = await art('DELETE', `/preview/models/${model.id}`);
    expect(deleted).toEqual({ status: 200, body: { model_id: model.id, deleted_checkpoints: 2, deleted_run: true } });
  });

  it('scores missing logprobs once, under the checkpoint the job starts from: a second epoch compares against it', async () => {
    const model = (await register('rl-epochs')).body as Model;
    const groups = await rollouts(model, 0, 1, 3);
    // `epochs` is a Trellis trainer knob (numeric experimental_config fields reach the embedded trainer).
    const result = await train(model, groups, { ...artExperimentalConfig(3e-3), epochs: 2 });
    const steps = result.events.filter((event) => event.type === 'gradient_step').map((event) => event.data);
    expect(steps).toHaveLength(2);
    // The first epoch trains the policy the rollouts came from (ratio 1); the second has moved away from it.
    expect(steps[0]!.mean_ratio).toBeCloseTo(1, 6);
    expect(Math.abs(steps[1]!.mean_ratio - 1)).toBeGreaterThan(1e-6);
    expect(steps[0]!.loss).not.toBe(steps[1]!.loss);
    // The checkpoint's step is the adapter's: one per optimizer step.
    expect(result.step).toBe(2);
  });

  it('train_sft_from_file: config.learning_rate as a list, one rate per batch, used in order and recorded on the job', async () => {
    const model = (await register('sft-agent')).body as Model;
    const lines = ['red', 'green', 'blue', 'amber'].map((colour) =>
      JSON.stringify({ messages: [{ role: 'user', content: 'Name a colour.' }, { role: 'assistant', content: colour }] }),
    );
    // ART uploads the file as a dataset artifact and names its first version.
    const upload = await platform.fetch('/registry/v1/artifacts/trellis/art-flows/sft-colours', {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'dataset', files: [{ path: 'train.jsonl', content_base64: Buffer.from(`${lines.join('\n')}\n`).toString('base64') }] }),
    });
    expect(upload.status).toBe(200);
    const url = 'wandb-artifact:///trellis/art-flows/sft-colours:v0';

    // 4 examples, batch size 2: two batches, two rates.
    const rates = [2e-3, 5e-4];
    const job = await art('POST', '/preview/sft-training-jobs', { model_id: model.id, training_data_url: url, config: { batch_size: 2, learning_rate: rates } });
    expect(job.status, JSON.stringify(job.body)).toBe(200);
    const events = await pollJobEvents(art, job.body.id);
    expect(events.at(-1)!.type).toBe('training_ended');
    const steps = events.filter((event) => event.type === 'gradient_step').map((event) => event.data);
    expect(steps.map((step) => step.learning_rate)).toEqual(rates);
    expect(await getStep(art, model.id)).toBe(2); // one step per batch
    const recorded = await platform.graphql('query($id: ID!) { trainingJob(id: $id) { config } }', { id: job.body.id });
    expect(recorded.body.data.trainingJob.config).toMatchObject({ config: { batch_size: 2, learning_rate: rates } });

    // A list that does not have one rate per batch fails the job, saying so (ART's own trainer refuses it too).
    const short = await art('POST', '/preview/sft-training-jobs', { model_id: model.id, training_data_url: url, config: { batch_size: 2, learning_rate: [1e-3] } });
    expect(short.status).toBe(200);
    const failed = await pollJobEvents(art, short.body.id);
    expect(failed.at(-1)).toMatchObject({ type: 'training_failed', data: { error_message: expect.stringMatching(/1 rates.*2 batches/) } });

    // A single number is still the peak of the schedule; anything else is refused at the body.
    const scalar = await art('POST', '/preview/sft-training-jobs', { model_id: model.id, training_data_url: url, config: { learning_rate: 1e-3 } });
    expect(scalar.status).toBe(200);
    const bad = await art('POST', '/preview/sft-training-jobs', { model_id: model.id, training_data_url: url, config: { learning_rate: ['fast'] } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc.slice(0, 3)).toEqual(['body', 'config', 'learning_rate']);
  });
});
