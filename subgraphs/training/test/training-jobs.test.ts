import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_DIR, choiceFromGeneration, generate, loadModel, type LlamaModel } from '../../../model-runtime/index.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import type { TrainingServices } from '../services.js';

/**
 * Jobs off the request path: graphile-worker picks a queued job up, the embedded trainer runs it in a worker thread,
 * events arrive in order and the checkpoint exists when `training_ended` does. Also: bad data fails the job with
 * `training_failed`, cancel stops a running job, and a job whose worker stopped beating is retried once, then failed.
 */
let platform: TestPlatform;
let training: TrainingServices;
let base: LlamaModel;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { TRELLIS_TRAINING_HEARTBEAT_MS: '200', TRELLIS_TRAINING_STALE_AFTER_MS: '1500' } });
  training = platform.subgraphs.get('training')!.services as TrainingServices;
  base = loadModel(DEFAULT_MODEL_DIR);
});
afterAll(async () => {
  await platform?.close();
});

async function call(method: string, path: string, body?: unknown, key = platform.adminKey) {
  const response = await platform.fetch(`/training${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** A dataset artifact version in project trellis/jobs, uploaded through the registry's REST route. */
async function uploadDataset(collection: string, content: string, path = 'train.jsonl') {
  const response = await platform.fetch(`/registry/v1/artifacts/trellis/jobs/${collection}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ files: [{ path, content_base64: Buffer.from(content).toString('base64') }] }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { version: string };
}

/**
 * Every state the model's registry run has been in, oldest first, from its RUN_STATE events (the registry records
 * training's platform events asynchronously: waits until the run is FINISHED, FAILED or KILLED last).
 */
async function runStates(runName: string, timeoutMs = 20_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql<{ state: string }>`
      select payload->>'state' as state from platform_events.events
      where type = 'RUN_STATE' and payload->'run'->>'name' = ${runName} order by id`.execute(platform.db.root);
    const states = rows.map((row) => row.state);
    if (['FINISHED', 'FAILED', 'KILLED'].includes(states.at(-1) ?? '') || Date.now() > deadline) return states;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const createModel = async (name: string) =>
  (await call('POST', '/v1/preview/models', { entity: null, project: 'jobs', name, base_model: 'trellis-tiny', return_existing: true })).body;

/**
 * Rollouts sampled from the base model with logprobs. The reward is the test's own and ranks the samples of a group
 * by their index: a length-based reward gave every sample of a group the same score once the base model answered
 * in equal-length words, and equal rewards mean zero advantages, i.e. no update at all.
 */
async function rolloutGroups(groups: number, perGroup: number) {
  const result = [];
  for (let g = 0; g < groups; g++) {
    const messages = [{ role: 'user' as const, content: `What is the capital of country ${g}?` }];
    const generation = await generate(base, { messages, n: perGroup, max_tokens: 8, temperature: 1, seed: g, logprobs: true });
    result.push({
      trajectories: generation.choices.map((choice, index) => ({
        messages_and_choices: [...messages, choiceFromGeneration(choice)],
        reward: index / perGroup,
      })),
    });
  }
  return result;
}

/** ART's loop: poll every `intervalMs` with `after` = last event id until training_ended or training_failed. */
async function pollEvents(jobId: string, intervalMs = 200, timeoutMs = 60_000) {
  const events: { id: string; type: string; data: Record<string, unknown> }[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const after = events.at(-1)?.id;
    const page = await call('GET', `/v1/preview/training-jobs/${jobId}/events${after ? `?after=${after}` : ''}`);
    events.push(...page.body.data);
    const last = events.at(-1);
    if (last && (last.type === 'training_ended' || last.type === 'training_failed')) return events;
    if (!page.body.has_more) await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`job ${jobId} did not end; events so far: ${JSON.stringify(events)}`);
}

/** Rollouts sampled through /v1/chat/completions with logprobs, as ART samples them; the choice goes back verbatim. */
async function sampleGroups(model: string, groups: number, perGroup: number, seed = 0) {
  const result = [];
  for (let g = 0; g < groups; g++) {
    const messages = [{ role: 'user', content: `Say something about city ${g}.` }];
    const response = await call('POST', '/v1/chat/completions', { model, messages, n: perGroup, max_tokens: 8, temperature: 1, seed: seed + g, logprobs: true });
    expect(response.status).toBe(200);
    result.push({
      trajectories: response.body.choices.map((choice: { message: { content: string } }, index: number) => ({
        messages_and_choices: [...messages, choice],
        // The reward is the test's own, distinct within each group whatever the model says (see rolloutGroups).
        reward: index / perGroup,
      })),
    });
  }
  return result;
}

describe('RL jobs on the queue (the ART serverless loop)', () => {
  it('samples, trains a job in a worker thread, sees the checkpoint when training_ended is visible, and samples the new step', async () => {
    const model = await createModel('rl-loop');
    const name = `wandb-artifact:///${model.entity}/${model.project}/${model.name}`;
    const before = await call('GET', `/v1/preview/models/${model.id}/checkpoints?limit=1&order=desc`);
    expect(before.body.data).toEqual([]); // step 0

    const groups = await sampleGroups(name, 2, 3);
    for (const trajectory of groups[0]!.trajectories) {
      expect(trajectory.messages_and_choices[1].logprobs.content.length).toBeGreaterThan(0);
    }
    const job = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: groups });
    expect(job.status).toBe(200);
    const events = await pollEvents(job.body.id);
    expect(events.map((event) => event.type)).toEqual(['training_started', 'gradient_step', 'training_ended']);
    expect(events[0]!.data).toEqual({ num_sequences: 6 });
    for (const value of Object.values(events[1]!.data)) expect(typeof value).toBe('number');
    expect(events[1]!.data).toMatchObject({ loss: expect.any(Number), reward: expect.any(Number), num_trajectories: expect.any(Number) });

    // Read right after training_ended, as ART does.
    const after = await call('GET', `/v1/preview/models/${model.id}/checkpoints?limit=1&order=desc`);
    expect(after.body.data).toEqual([{ id: expect.any(String), step: 1, metrics: expect.objectContaining({ loss: expect.any(Number) }) }]);
    const stored = await training.store.latestCheckpoint(model.id);
    expect(JSON.parse(stored!.adapter_config!)).toMatchObject({ peft_type: 'LORA', trellis_step: 1 });
    expect(stored!.adapter_weights!.length).toBeGreaterThan(1000);

    const read = await call('GET', `/v1/preview/training-jobs/${job.body.id}`);
    expect(read.body).toMatchObject({ status: 'SUCCEEDED', error_message: null });
    expect(Date.parse(read.body.training_end)).toBeGreaterThanOrEqual(Date.parse(read.body.training_start));

    // The same request to the base model and to :latest (also spelled :step1, and with the two-slash typo)
    // now differ: the adapter is applied.
    const probe = (modelName: string) =>
      call('POST', '/v1/chat/completions/', { model: modelName, messages: [{ role: 'user', content: 'Say something about city 0.' }], max_tokens: 4, temperature: 0, logprobs: true });
    const base = (await probe('trellis-tiny')).body.choices[0].logprobs.content;
    const latest = (await probe(`${name}:latest`)).body.choices[0].logprobs.content;
    const step1 = (await probe(`${name.replace(':///', '://')}:step1`)).body.choices[0].logprobs.content;
    expect(latest).toEqual(step1);
    expect(latest[0].logprob).not.toBeCloseTo(base[0].logprob, 6);
    expect((await probe(`${name}:step7`)).status).toBe(404);

    // The next job continues from the stored adapter: step 2.
    const second = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: await sampleGroups(`${name}:latest`, 1, 2) });
    expect((await pollEvents(second.body.id)).at(-1)!.type).toBe('training_ended');
    const steps = await call('GET', `/v1/preview/models/${model.id}/checkpoints`);
    expect(steps.body.data.map((item: { step: number }) => item.step)).toEqual([1, 2]);

    // The registry records each checkpoint as an artifact version of the model's collection and the run's state,
    // from platform events (so automations can watch them).
    const registryView = async () => {
      const { project } = (
        await platform.graphql(`{ project(entity: "trellis", name: "jobs") {
          runs { nodes { name state loss: metricHistory(name: "loss") { step value } } }
          artifactCollections { nodes { name type versions { nodes { version aliases metadata files { path size } } } } }
        } }`)
      ).body.data;
      return {
        runs: project.runs.nodes,
        artifactCollections: project.artifactCollections.nodes.map((c: { versions: { nodes: unknown[] } }) => ({ ...c, versions: c.versions.nodes })),
      };
    };
    let view = await registryView();
    const deadline = Date.now() + 20_000;
    // Each event is recorded on its own: wait until the last one (run_finished of the second job) is in.
    const recorded = (v: any) =>
      v.artifactCollections.find((c: { name: string }) => c.name === 'rl-loop')?.versions.length === 2 &&
      v.runs.find((r: { name: string }) => r.name === model.run_id)?.state === 'FINISHED';
    while (!recorded(view) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      view = await registryView();
    }
    const collection = view.artifactCollections.find((c: { name: string }) => c.name === 'rl-loop');
    expect(collection.type).toBe('model');
    expect(collection.versions.map((v: { aliases: string[] }) => v.aliases.sort())).toEqual([['step1'], ['latest', 'step2']]);
    expect(collection.versions[0].metadata).toMatchObject({ step: 1, base_model: 'trellis-tiny', metrics: { loss: expect.any(Number) } });
    expect(collection.versions[0].files.map((f: { path: string }) => f.path).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    const run = view.runs.find((r: { name: string }) => r.name === model.run_id);
    expect(run.state).toBe('FINISHED');
    expect(run.loss.map((point: { step: number }) => point.step)).toEqual([1, 2]);
  });

  it('fails a job whose data the trainer rejects with training_failed and status FAILED', async () => {
    const model = await createModel('bad-data');
    // Logprobs that do not spell the content pass the API's shape check but not the trainer's.
    const groups = [
      {
        trajectories: [0, 1].map((i) => ({
          messages_and_choices: [
            { role: 'user', content: 'hi' },
            { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'abc' }, logprobs: { content: [{ token: 'zzz', logprob: -1, bytes: [1] }] } },
          ],
          reward: i,
        })),
      },
    ];
    const job = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: groups });
    const events = await pollEvents(job.body.id);
    expect(events.at(-1)).toMatchObject({ type: 'training_failed', data: { error_message: expect.any(String) } });
    const read = await call('GET', `/v1/preview/training-jobs/${job.body.id}`);
    expect(read.body.status).toBe('FAILED');
    expect(read.body.error_message).toBe(events.at(-1)!.data.error_message);
    expect((await call('GET', `/v1/preview/models/${model.id}/checkpoints`)).body.data).toEqual([]);

    // The registry run of the model went RUNNING → FAILED.
    const deadline = Date.now() + 20_000;
    let state: string | undefined;
    while (state !== 'FAILED' && Date.now() < deadline) {
      const { body } = await platform.graphql('{ project(entity: "trellis", name: "jobs") { runs { nodes { name state } } } }');
      state = body.data.project.runs.nodes.find((r: { name: string }) => r.name === model.run_id)?.state;
      if (state !== 'FAILED') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(state).toBe('FAILED');
  });

  it('SFT end to end: uploads train.jsonl, trains on it, reads the new step and samples :latest', async () => {
    const model = await createModel('sft-loop');
    const name = `wandb-artifact:///${model.entity}/${model.project}/${model.name}`;
    const lines = ['Paris', 'Rome', 'Oslo', 'Lima'].map((city) =>
      JSON.stringify({ messages: [{ role: 'user', content: 'Name a capital.' }, { role: 'assistant', content: city }] }),
    );
    const dataset = await uploadDataset('capitals', `${lines.join('\n')}\n`);
    expect(dataset.version).toBe('v0');

    const job = await call('POST', '/v1/preview/sft-training-jobs', {
      model_id: model.id,
      training_data_url: 'wandb-artifact:///trellis/jobs/capitals:v0',
      config: { batch_size: 2, learning_rate: 0.02 },
    });
    expect(job.status).toBe(200);
    // The job trains on the copy taken at submission: a new version of the dataset changes nothing.
    await uploadDataset('capitals', 'not json\n');
    const events = await pollEvents(job.body.id);
    expect(events.map((event) => event.type)).toEqual(['training_started', 'gradient_step', 'gradient_step', 'training_ended']);
    expect(events[0]!.data).toEqual({ num_sequences: 4 });
    expect(events[1]!.data).toMatchObject({ loss: expect.any(Number), num_trainable_tokens: expect.any(Number) });
    expect((await call('GET', `/v1/preview/training-jobs/${job.body.id}`)).body).toMatchObject({ kind: 'SFT', status: 'SUCCEEDED' });
    const latest = await call('GET', `/v1/preview/models/${model.id}/checkpoints?limit=1&order=desc`);
    expect(latest.body.data).toEqual([{ id: expect.any(String), step: 2, metrics: expect.objectContaining({ loss: expect.any(Number) }) }]);

    const probe = async (modelName: string) =>
      (await call('POST', '/v1/chat/completions', { model: modelName, messages: [{ role: 'user', content: 'Name a capital.' }], max_tokens: 3, temperature: 0, logprobs: true })).body
        .choices[0].logprobs.content;
    const before = await probe('trellis-tiny');
    const after = await probe(`${name}:latest`);
    expect(after[0].logprob).not.toBeCloseTo(before[0].logprob, 6);
  });

  it('an SFT job with bad lines in train.jsonl ends with training_failed naming the lines, status FAILED', async () => {
    const model = await createModel('sft-bad-lines');
    const good = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] });
    const content = [
      good,
      '{"messages": [',
      JSON.stringify({ prompt: 'no messages' }),
      '',
      JSON.stringify({ messages: [{ role: 'user', content: 'no answer' }] }),
      good,
    ].join('\n');
    await uploadDataset('broken', content);
    const job = await call('POST', '/v1/preview/sft-training-jobs', { model_id: model.id, training_data_url: 'wandb-artifact:///trellis/jobs/broken:latest' });
    expect(job.status).toBe(200);
    const events = await pollEvents(job.body.id);
    expect(events.map((event) => event.type)).toEqual(['training_failed']);
    const message = events[0]!.data.error_message as string;
    expect(message).toMatch(/^train\.jsonl has 3 invalid lines: line 2: invalid JSON .*; line 3: missing "messages"; line 5: no assistant turn to train on$/);
    expect((await call('GET', `/v1/preview/training-jobs/${job.body.id}`)).body).toMatchObject({ status: 'FAILED', error_message: message });
    expect((await call('GET', `/v1/preview/models/${model.id}/checkpoints`)).body.data).toEqual([]);

    // A line in the OpenAI shape that the embedded trainer cannot use (a tool turn) is named by its line too.
    const toolTurn = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'tool', content: '42' }, { role: 'assistant', content: 'ok' }] });
    await uploadDataset('tool-turns', `${good}\n\n${toolTurn}\n`);
    const second = await call('POST', '/v1/preview/sft-training-jobs', { model_id: model.id, training_data_url: 'wandb-artifact:///trellis/jobs/tool-turns' });
    expect((await pollEvents(second.body.id)).at(-1)).toMatchObject({
      type: 'training_failed',
      data: { error_message: expect.stringMatching(/^train\.jsonl line 3: messages\[1\]\.role/) },
    });
  });

  it('a training_data_url that does not resolve is a 422 naming it, and creates no job', async () => {
    const model = await createModel('sft-unresolved');
    await uploadDataset('no-train-file', 'x', 'other.jsonl');
    const outsider = await platform.createUser('sft-outsider', { outsiders: 'ADMIN' });
    const outsiderModel = (
      await call('POST', '/v1/preview/models', { entity: 'outsiders', project: 'p', name: 'm', base_model: 'trellis-tiny' }, outsider.key)
    ).body;
    const cases: [string, string, string, RegExp][] = [
      [platform.adminKey, model.id, 'https://example.com/train.jsonl', /expected wandb-artifact/],
      [platform.adminKey, model.id, 'wandb-artifact:///trellis/jobs/nothing-here:v0', /no artifact version trellis\/jobs\/nothing-here:v0/],
      [platform.adminKey, model.id, 'wandb-artifact:///trellis/jobs/capitals:v99', /no artifact version/],
      [platform.adminKey, model.id, 'wandb-artifact:///trellis/jobs/no-train-file:v0', /has no train\.jsonl/],
      // Another team's dataset looks like a missing one.
      [outsider.key, outsiderModel.id, 'wandb-artifact:///trellis/jobs/capitals:v0', /no artifact version/],
    ];
    for (const [key, modelId, url, reason] of cases) {
      const response = await call('POST', '/v1/preview/sft-training-jobs', { model_id: modelId, training_data_url: url }, key);
      expect(response.status, url).toBe(422);
      expect(response.body.error, url).toMatchObject({ type: 'invalid_request_error', param: 'training_data_url', message: expect.stringMatching(reason) });
    }
    expect((await call('GET', `/v1/preview/models/${model.id}/training-jobs`)).body.data).toEqual([]);
    expect((await call('GET', `/v1/preview/models/${outsiderModel.id}/training-jobs`, undefined, outsider.key)).body.data).toEqual([]);
  });

  it('cancelling a running job stops its training and frees the worker for the next job', async () => {
    const model = await createModel('cancelled');
    // Many epochs keep the job running long enough to cancel it mid-training.
    const slow = await call('POST', '/v1/preview/training-jobs', {
      model_id: model.id,
      trajectory_groups: await rolloutGroups(2, 4),
      experimental_config: { epochs: 500 },
    });
    const deadline = Date.now() + 30_000;
    while ((await call('GET', `/v1/preview/training-jobs/${slow.body.id}`)).body.status !== 'RUNNING') {
      if (Date.now() > deadline) throw new Error('job never started');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const cancelled = await call('POST', `/v1/preview/training-jobs/${slow.body.id}/cancel`);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect((await pollEvents(slow.body.id)).at(-1)).toEqual({
      id: expect.any(String),
      type: 'training_failed',
      data: { error_message: 'Training job was cancelled' },
    });

    // With concurrency 1, the next job can only run once the cancelled one has let go of the worker.
    const next = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: await rolloutGroups(1, 2) });
    expect((await pollEvents(next.body.id)).at(-1)!.type).toBe('training_ended');
    expect((await call('GET', `/v1/preview/training-jobs/${slow.body.id}`)).body.status).toBe('CANCELLED');
    // The registry run did not stay RUNNING: the cancel ended it KILLED (before the next job started it again).
    expect(await runStates(model.run_id)).toContain('KILLED');
    // The cancelled training stored nothing: the only checkpoint is the next job's.
    expect((await call('GET', `/v1/preview/models/${model.id}/checkpoints`)).body.data.map((item: { step: number }) => item.step)).toEqual([1]);
  });

  it('a RUNNING job whose worker stopped beating is retried once, then failed with a clear message', async () => {
    const model = await createModel('orphaned');
    const groups = await rolloutGroups(1, 2);
    // Two jobs left the way a killed worker leaves them: RUNNING, last heartbeat long ago (no queue entry running them).
    const orphan = async (attempts: number) => {
      const job = await training.store.transaction(async (trx) => {
        const row = await training.store.insertJob(trx, { model_id: model.id, kind: 'RL', created_by_id: 'test', created_by: 'admin', request: { trajectory_groups: groups, experimental_config: null } });
        await training.store.updateJob(trx, row.id, { status: 'RUNNING', attempts, heartbeat_at: new Date(Date.now() - 60_000), training_start: new Date() });
        return row;
      });
      return job.id;
    };
    const retried = await orphan(1);
    const abandoned = await orphan(2);

    expect((await pollEvents(retried)).at(-1)!.type).toBe('training_ended');
    expect((await call('GET', `/v1/preview/training-jobs/${retried}`)).body.status).toBe('SUCCEEDED');

    const failed = await pollEvents(abandoned);
    expect(failed.at(-1)).toMatchObject({ type: 'training_failed', data: { error_message: expect.stringContaining('stopped responding') } });
    expect((await call('GET', `/v1/preview/training-jobs/${abandoned}`)).body).toMatchObject({
      status: 'FAILED',
      error_message: expect.stringContaining('attempt 2 of 2'),
    });
  });
});
