import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import type { TrainingServices } from '../services.js';

/**
 * The Family C REST surface as the ART client sees it: shapes, cursor pagination, error conventions (422
 * `{detail}` for validation, OpenAI-style bodies otherwise) and all-or-nothing writes.
 */
let platform: TestPlatform;
let training: TrainingServices;

beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
  training = platform.subgraphs.get('training')!.services as TrainingServices;
});
afterAll(async () => {
  await platform?.close();
});

async function call(method: string, path: string, body?: unknown, key: string | null = platform.adminKey) {
  const response = await platform.fetch(`/training${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

const createModel = (name: string, extra: Record<string, unknown> = {}) =>
  call('POST', '/v1/preview/models', { entity: null, project: 'art-demo', name, base_model: 'trellis-tiny', return_existing: true, ...extra });

/** Seeds finished steps through the store the trainer writes them with. */
async function seedCheckpoints(modelId: string, steps: number[]) {
  await training.store.transaction(async (trx) => {
    for (const step of steps) await training.store.insertCheckpoint(trx, { model_id: modelId, step, metrics: { loss: 1 / step }, adapter_config: null, adapter_weights: null });
  });
}

const choice = (withLogprobs: boolean) => ({
  index: 0,
  finish_reason: 'stop',
  message: { role: 'assistant', content: 'Paris' },
  ...(withLogprobs ? { logprobs: { content: [{ token: 'Paris', logprob: -0.1, bytes: null, top_logprobs: [] }] } } : {}),
});
const trajectory = (reward: number, withLogprobs = true) => ({
  messages_and_choices: [{ role: 'user', content: 'Capital of France?' }, choice(withLogprobs)],
  reward,
});

describe('models', () => {
  it('creates a model with entity null in the caller\'s default entity and returns the existing one with return_existing', async () => {
    const first = await createModel('agent-001');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      entity: 'trellis',
      project: 'art-demo',
      name: 'agent-001',
      base_model: 'trellis-tiny',
      run_id: expect.any(String),
    });
    const again = await createModel('agent-001');
    expect(again.body).toEqual(first.body);

    const conflict = await createModel('agent-001', { return_existing: false });
    expect(conflict.status).toBe(422);
    expect(conflict.body.detail[0]).toMatchObject({ loc: ['body', 'name'] });

    // The project was created on first use and counts the model.
    const { body } = await platform.graphql('{ project(entity: "trellis", name: "art-demo") { trainingModelCount } }');
    expect(body.data.project.trainingModelCount).toBe(1);
  });

  it('rejects a malformed body with a FastAPI-style 422 and an anonymous caller with 401', async () => {
    const invalid = await call('POST', '/v1/preview/models', { project: 'art-demo', base_model: 'x' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail).toContainEqual({ loc: ['body', 'name'], msg: 'Field required', type: 'missing' });
    const anonymous = await call('POST', '/v1/preview/models', { project: 'p', name: 'n', base_model: 'b' }, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.type).toBe('authentication_error');
  });

  it('keeps other teams out: a member of another team gets 403 and cannot see the model', async () => {
    const model = (await createModel('private-model')).body;
    const outsider = await platform.createUser('outsider-c', { otherteam: 'ADMIN' });
    const denied = await call('GET', `/v1/preview/models/${model.id}/checkpoints`, undefined, outsider.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error.type).toBe('permission_error');
    const foreign = await call('POST', '/v1/preview/models', { entity: 'trellis', project: 'x', name: 'y', base_model: 'b' }, outsider.key);
    expect(foreign.status).toBe(403);
  });

  it('deletes a model with its checkpoints and reports the counts; then it is a 404', async () => {
    const model = (await createModel('to-delete')).body;
    await seedCheckpoints(model.id, [1, 2, 3]);
    const deleted = await call('DELETE', `/v1/preview/models/${model.id}`);
    expect(deleted).toEqual({ status: 200, body: { model_id: model.id, deleted_checkpoints: 3, deleted_run: true } });
    const gone = await call('GET', `/v1/preview/models/${model.id}/checkpoints`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    const notUuid = await call('DELETE', '/v1/preview/models/not-a-uuid');
    expect(notUuid.status).toBe(404);
  });
});

describe('checkpoints', () => {
  it('lists by step with after/limit/order and the list envelope; ART reads the current step with limit=1&order=desc', async () => {
    const model = (await createModel('paged')).body;
    const empty = await call('GET', `/v1/preview/models/${model.id}/checkpoints?limit=1&order=desc`);
    expect(empty.body).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });

    await seedCheckpoints(model.id, [3, 1, 2, 5, 4]);
    const latest = await call('GET', `/v1/preview/models/${model.id}/checkpoints?limit=1&order=desc`);
    expect(latest.body.data).toEqual([{ id: expect.any(String), step: 5, metrics: { loss: 0.2 } }]);
    expect(latest.body.has_more).toBe(true);

    const steps: number[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page: any = await call('GET', `/v1/preview/models/${model.id}/checkpoints?limit=2${after ? `&after=${after}` : ''}`);
      steps.push(...page.body.data.map((item: { step: number }) => item.step));
      expect(page.body.first_id).toBe(page.body.data[0]?.id ?? null);
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    expect(steps).toEqual([1, 2, 3, 4, 5]);

    const badLimit = await call('GET', `/v1/preview/models/${model.id}/checkpoints?limit=101`);
    expect(badLimit.status).toBe(422);
    expect(badLimit.body.detail[0].loc).toEqual(['query', 'limit']);
    const badOrder = await call('GET', `/v1/preview/models/${model.id}/checkpoints?order=sideways`);
    expect(badOrder.status).toBe(422);
    expect(badOrder.body.detail[0].loc).toEqual(['query', 'order']);
  });

  it('deletes steps in one transaction, reporting the ones that do not exist', async () => {
    const model = (await createModel('pruned')).body;
    await seedCheckpoints(model.id, [1, 2, 3]);
    const result = await call('DELETE', `/v1/preview/models/${model.id}/checkpoints`, { steps: [1, 3, 7, 7] });
    expect(result).toEqual({ status: 200, body: { deleted_count: 2, not_found_steps: [7] } });
    const left = await call('GET', `/v1/preview/models/${model.id}/checkpoints`);
    expect(left.body.data.map((item: { step: number }) => item.step)).toEqual([2]);

    const invalid = await call('DELETE', `/v1/preview/models/${model.id}/checkpoints`, { steps: [2, 'x'] });
    expect(invalid.status).toBe(422);
    expect((await call('GET', `/v1/preview/models/${model.id}/checkpoints`)).body.data).toHaveLength(1);
  });
});

describe('trajectory logs', () => {
  it('stores groups per split and serves them in GraphQL', async () => {
    const model = (await createModel('logged')).body;
    const train = await call('POST', `/v1/preview/models/${model.id}/log`, {
      model_id: model.id,
      split: 'train',
      trajectory_groups: [{ trajectories: [trajectory(1), trajectory(0)] }],
    });
    expect(train).toEqual({ status: 200, body: {} });
    await call('POST', `/v1/preview/models/${model.id}/log`, { split: 'val', trajectory_groups: [{ trajectories: [trajectory(0.5)] }] });

    const { body } = await platform.graphql(
      `query($id: ID!) { trainingModel(id: $id) { val: trajectoryLogs(split: "val") { nodes { split trajectoryGroups } } all: trajectoryLogs { nodes { split } } } }`,
      { id: model.id },
    );
    expect(body.data.trainingModel.val.nodes).toEqual([{ split: 'val', trajectoryGroups: [{ trajectories: [trajectory(0.5)] }] }]);
    expect(body.data.trainingModel.all.nodes.map((log: { split: string }) => log.split).sort()).toEqual(['train', 'val']);

    const unknown = await call('POST', '/v1/preview/models/00000000-0000-4000-8000-000000000000/log', { split: 'train', trajectory_groups: [] });
    expect(unknown.status).toBe(404);
  });
});

describe('training jobs', () => {
  it('queues an RL job, reads it, lists it per model, pages its events and cancels it', async () => {
    const model = (await createModel('rl-model')).body;
    const created = await call('POST', '/v1/preview/training-jobs', {
      model_id: model.id,
      trajectory_groups: [{ trajectories: [trajectory(1), trajectory(0)] }],
      experimental_config: { learning_rate: 1e-3, loss_fn: 'cispo', some_future_option: 3 },
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body)).toEqual(['id']);
    const jobId = created.body.id;

    const job = await call('GET', `/v1/preview/training-jobs/${jobId}`);
    expect(job.body).toMatchObject({ id: jobId, model_id: model.id, kind: 'RL', status: 'QUEUED', training_start: null, training_end: null, error_message: null });

    const { body } = await platform.graphql(`query($id: ID!) { trainingJob(id: $id) { config } }`, { id: jobId });
    expect(body.data.trainingJob.config.experimental_config).toEqual({ learning_rate: 1e-3, loss_fn: 'cispo', some_future_option: 3 });

    const listed = await call('GET', `/v1/preview/models/${model.id}/training-jobs`);
    expect(listed.body.data.map((item: { id: string }) => item.id)).toEqual([jobId]);

    const events = await call('GET', `/v1/preview/training-jobs/${jobId}/events`);
    expect(events.body).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });

    const cancelled = await call('POST', `/v1/preview/training-jobs/${jobId}/cancel`);
    expect(cancelled.body).toMatchObject({ id: jobId, status: 'CANCELLED', training_end: expect.any(String) });
    expect((await call('GET', `/v1/preview/training-jobs/${jobId}`)).body.status).toBe('CANCELLED');
    // Cancelling again is harmless.
    expect((await call('POST', `/v1/preview/training-jobs/${jobId}/cancel`)).body.status).toBe('CANCELLED');
  });

  it('pages job events with after/limit in order', async () => {
    const model = (await createModel('evented')).body;
    const jobId = (await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: [{ trajectories: [trajectory(1)] }] })).body.id;
    await training.store.transaction(async (trx) => {
      await training.store.insertJobEvent(trx, jobId, 'training_started', { num_sequences: 1 });
      for (let step = 0; step < 3; step++) await training.store.insertJobEvent(trx, jobId, 'gradient_step', { loss: step });
      await training.store.insertJobEvent(trx, jobId, 'training_ended', {});
    });
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page: any = await call('GET', `/v1/preview/training-jobs/${jobId}/events?limit=2${after ? `&after=${after}` : ''}`);
      seen.push(...page.body.data.map((event: { type: string }) => event.type));
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    expect(seen).toEqual(['training_started', 'gradient_step', 'gradient_step', 'gradient_step', 'training_ended']);
  });

  it('rejects bad RL input (empty group list, unknown model) and accepts choices without logprobs, which the trainer scores', async () => {
    const model = (await createModel('strict')).body;
    const empty = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'trajectory_groups']);

    // ART's docs loop samples without logprobs and sends allow_training_without_logprobs: false (test/e2e/art-client).
    const noLogprobs = await call('POST', '/v1/preview/training-jobs', {
      model_id: model.id,
      trajectory_groups: [{ trajectories: [trajectory(1)] }, { trajectories: [trajectory(1), trajectory(0, false)] }],
      experimental_config: { allow_training_without_logprobs: false },
    });
    expect(noLogprobs.status).toBe(200);

    const unknownModel = await call('POST', '/v1/preview/training-jobs', {
      model_id: '00000000-0000-4000-8000-000000000000',
      trajectory_groups: [{ trajectories: [trajectory(1)] }],
    });
    expect(unknownModel.status).toBe(404);
    expect(unknownModel.body.error.param).toBe('model_id');

    // Nothing but the accepted job was queued.
    expect((await call('GET', `/v1/preview/models/${model.id}/training-jobs`)).body.data).toHaveLength(1);
  });

  it('queues an SFT job for a wandb-artifact URL and rejects a malformed one', async () => {
    const model = (await createModel('sft-model')).body;
    const upload = await platform.graphql(`mutation($input: CreateArtifactVersionInput!) { createArtifactVersion(input: $input) { version } }`, {
      input: { entity: 'trellis', project: 'art-demo', collection: 'dataset', files: [{ path: 'train.jsonl', contentBase64: Buffer.from('{}').toString('base64') }] },
    });
    expect(upload.body.data.createArtifactVersion.version).toBe('v0');
    const created = await call('POST', '/v1/preview/sft-training-jobs', {
      model_id: model.id,
      training_data_url: 'wandb-artifact:///trellis/art-demo/dataset:v0',
      config: { batch_size: 2, learning_rate: 1e-3 },
    });
    expect(created.status).toBe(200);
    expect((await call('GET', `/v1/preview/training-jobs/${created.body.id}`)).body).toMatchObject({ kind: 'SFT', status: 'QUEUED' });
    const malformed = await call('POST', '/v1/preview/sft-training-jobs', { model_id: model.id, training_data_url: 'https://example.com/x.jsonl' });
    expect(malformed.status).toBe(422);
    expect(malformed.body.error).toMatchObject({ param: 'training_data_url', type: 'invalid_request_error' });
  });

  it('answers 404 for an unknown job', async () => {
    for (const path of ['/v1/preview/training-jobs/00000000-0000-4000-8000-000000000000', '/v1/preview/training-jobs/nope/events']) {
      const response = await call('GET', path);
      expect(response.status).toBe(404);
      expect(response.body.error.type).toBe('not_found_error');
    }
  });
});

describe('health', () => {
  it('answers /v1/health and /v1/system-check without a key, with per-check durations', async () => {
    expect(await call('GET', '/v1/health', undefined, null)).toEqual({ status: 200, body: { status: 'ok' } });
    const check = await call('GET', '/v1/system-check', undefined, null);
    expect(check.status).toBe(200);
    expect(check.body.success).toBe(true);
    for (const name of ['api', 'database', 'job_store', 'job_queue', 'workers']) {
      expect(check.body.checks[name]).toMatchObject({ success: true, duration: expect.any(Number), errors: [] });
    }
  });

  it('tells an anonymous caller only whether each check passed; a caller with a key gets counts of their own teams\' jobs', async () => {
    // Two teams with one queued job each (no workers run here, so both stay queued).
    const teams = ['check-a', 'check-b'];
    const users = await Promise.all(teams.map((team) => platform.createUser(`${team}-user`, { [team]: 'ADMIN' })));
    for (const [index, team] of teams.entries()) {
      const model = await call('POST', '/v1/preview/models', { entity: team, project: 'p', name: 'm', base_model: 'trellis-tiny', return_existing: true }, users[index]!.key);
      const job = await call('POST', '/v1/preview/training-jobs', { model_id: model.body.id, trajectory_groups: [{ trajectories: [trajectory(1), trajectory(0)] }] }, users[index]!.key);
      expect(job.status).toBe(200);
    }

    const anonymous = await call('GET', '/v1/system-check', undefined, null);
    expect(anonymous.status).toBe(200);
    for (const check of Object.values<any>(anonymous.body.checks)) {
      expect(Object.keys(check).sort()).toEqual(['duration', 'errors', 'success']);
    }
    const anonymousGraphql = await platform.graphql('{ trainingSystemCheck { success checks { name success duration errors details } } }', {}, null);
    expect(JSON.stringify(anonymousGraphql.body.data.trainingSystemCheck)).not.toMatch(/jobs_by_status|pending|locked|concurrency/);

    const member = await call('GET', '/v1/system-check', undefined, users[0]!.key);
    expect(member.body.checks.job_store.details).toEqual({ jobs_by_status: { QUEUED: 1 } });
    expect(member.body.checks.job_queue.details).toEqual({ pending: 1, locked: 0 });

    // A platform admin counts every team's jobs.
    const admin = await call('GET', '/v1/system-check');
    expect(admin.body.checks.job_store.details.jobs_by_status.QUEUED).toBeGreaterThanOrEqual(2);
    expect(admin.body.checks.job_queue.details.pending).toBeGreaterThanOrEqual(2);
  });

  it('answers 503 naming the failed check when a running job has been orphaned with nobody sweeping', async () => {
    // This platform runs no training workers: a RUNNING job with an old heartbeat stays orphaned.
    const model = (await createModel('orphan-check')).body;
    const orphan = await training.store.transaction(async (trx) => {
      const job = await training.store.insertJob(trx, { model_id: model.id, kind: 'RL', created_by_id: 'x', created_by: 'admin', request: {} });
      await training.store.updateJob(trx, job.id, { status: 'RUNNING', heartbeat_at: new Date(Date.now() - 3_600_000) });
      return job;
    });
    const check = await call('GET', '/v1/system-check', undefined, null);
    expect(check.status).toBe(503);
    expect(check.body.success).toBe(false);
    expect(check.body.checks.workers).toMatchObject({ success: false, errors: [expect.stringContaining('no training worker is sweeping')] });
    expect(check.body.checks.database.success).toBe(true);
    await training.store.transaction((trx) => training.store.updateJob(trx, orphan.id, { status: 'FAILED' }));
    expect((await call('GET', '/v1/system-check', undefined, null)).status).toBe(200);
  });
});
