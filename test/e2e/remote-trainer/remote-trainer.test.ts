import { spawn, type ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';
import { compiledEntry } from '../../support/processes.js';

/**
 * The remote trainer protocol end to end: the platform runs with TRELLIS_TRAINING_BACKEND=remote and a separate
 * process, written against the HTTP protocol only, leases the job, heartbeats, reports steps and uploads the
 * adapter; the job ends exactly as with the embedded trainer. A worker that takes a lease and goes silent loses
 * it and the job is trained by the live worker.
 */
let platform: TestPlatform;
let worker: ChildProcess | undefined;
let workerOutput = '';

beforeAll(async () => {
  // The test worker trains on its own main thread, so under a loaded CI machine its heartbeats can be seconds
  // apart; 1.5 s declared live workers dead there. 5 s still shows a silent lease holder losing its job.
  platform = await startTestPlatform({
    env: {
      TRELLIS_TRAINING_BACKEND: 'remote',
      TRELLIS_TRAINING_CONCURRENCY: '4',
      TRELLIS_TRAINING_HEARTBEAT_MS: '200',
      TRELLIS_TRAINING_STALE_AFTER_MS: '5000',
      // What the operator declares its remote workers train.
      TRELLIS_TRAINING_REMOTE_BASE_MODELS: 'trellis-tiny, acme/gpu-model',
    },
  });
});
afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker!.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await platform?.close();
});

async function call(method: string, route: string, body?: unknown) {
  const response = await platform.fetch(`/training${route}`, {
    method,
    headers: { authorization: `Bearer ${platform.adminKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

function startWorker(id: string): ChildProcess {
  const child = spawn(process.execPath, [compiledEntry('test/e2e/remote-trainer/remote-worker.ts'), `${platform.url}/training`, platform.adminKey, id], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (workerOutput += chunk));
  child.stderr!.on('data', (chunk) => (workerOutput += chunk));
  return child;
}

async function sampledGroups(model: string) {
  const messages = [{ role: 'user', content: 'Name a river.' }];
  const { body } = await call('POST', '/v1/chat/completions', { model, messages, n: 3, max_tokens: 8, seed: 3, logprobs: true });
  return [{ trajectories: body.choices.map((choice: unknown, i: number) => ({ messages_and_choices: [...messages, choice], reward: i })) }];
}

async function eventsUntilEnd(jobId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await call('GET', `/v1/preview/training-jobs/${jobId}/events?limit=1000`);
    const types = body.data.map((event: { type: string }) => event.type);
    if (types.includes('training_ended') || types.includes('training_failed')) return body.data;
    if (Date.now() > deadline) throw new Error(`job did not end: ${JSON.stringify(body.data)}; worker output: ${workerOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('remote trainer protocol', () => {
  it('refuses callers that are not platform operators', async () => {
    const member = await platform.createUser('remote-member', { trellis: 'MEMBER' });
    const response = await platform.fetch('/training/v1/workers/lease', {
      method: 'POST',
      headers: { authorization: `Bearer ${member.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ worker_id: 'w' }),
    });
    expect(response.status).toBe(403);
  });

  it('a silent lease holder loses the job to a live worker, which trains it through the protocol', async () => {
    const model = (await call('POST', '/v1/preview/models', { entity: null, project: 'remote', name: 'remote-model', base_model: 'trellis-tiny', return_existing: true })).body;
    const job = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: await sampledGroups('trellis-tiny') });

    // A worker that leases and then dies (never heartbeats again).
    let leased: any = null;
    for (let i = 0; i < 100 && !leased; i++) {
      leased = (await call('POST', '/v1/workers/lease', { worker_id: 'doomed' })).body.job;
      if (!leased) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(leased).toMatchObject({ job_id: job.body.id, kind: 'RL', base_model: 'trellis-tiny', adapter: null });
    expect(leased.trajectory_groups).toHaveLength(1);
    expect((await call('POST', `/v1/workers/jobs/${job.body.id}/steps`, { worker_id: 'someone-else', metrics: { loss: 1 } })).status).toBe(409);

    worker = startWorker('live');
    const events = await eventsUntilEnd(job.body.id);
    expect(events.map((event: { type: string }) => event.type)).toEqual(['training_started', 'gradient_step', 'training_ended']);
    expect(events[1].data).toMatchObject({ loss: expect.any(Number), reward: expect.any(Number) });
    expect((await call('GET', `/v1/preview/training-jobs/${job.body.id}`)).body.status).toBe('SUCCEEDED');
    // The doomed worker's lease is gone.
    expect((await call('POST', `/v1/workers/jobs/${job.body.id}/heartbeat`, { worker_id: 'doomed' })).body.status).toBe('LOST');

    // The uploaded adapter is the checkpoint, and it serves: :latest differs from the base model.
    const checkpoints = await call('GET', `/v1/preview/models/${model.id}/checkpoints?limit=1&order=desc`);
    expect(checkpoints.body.data[0].step).toBe(1);
    const probe = async (name: string) =>
      (await call('POST', '/v1/chat/completions', { model: name, messages: [{ role: 'user', content: 'Name a river.' }], max_tokens: 3, temperature: 0, logprobs: true })).body
        .choices[0].logprobs.content[0].logprob;
    expect(await probe(`wandb-artifact:///trellis/remote/remote-model:latest`)).not.toBeCloseTo(await probe('trellis-tiny'), 6);

    // The next job continues from that adapter, which the protocol hands to the worker.
    const second = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: await sampledGroups('wandb-artifact:///trellis/remote/remote-model') });
    expect((await eventsUntilEnd(second.body.id)).at(-1).type).toBe('training_ended');
    expect((await call('GET', `/v1/preview/models/${model.id}/checkpoints`)).body.data.map((c: { step: number }) => c.step)).toEqual([1, 2]);
  });

  it('accepts models only on the base models the remote workers are declared to train', async () => {
    const declared = await call('POST', '/v1/preview/models', { entity: null, project: 'remote', name: 'on-gpu', base_model: 'acme/gpu-model', return_existing: true });
    expect(declared.status).toBe(200);
    const refused = await call('POST', '/v1/preview/models', { entity: null, project: 'remote', name: 'on-qwen', base_model: 'OpenPipe/Qwen3-14B-Instruct', return_existing: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: 'base_model', message: expect.stringContaining('trellis-tiny, acme/gpu-model') });
  });

  it('hands a worker RL choices without logprobs, flagged to be scored under the assignment\'s adapter, and it trains them', async () => {
    worker ??= startWorker('live'); // started by the test above when the file runs whole
    const model = (await call('POST', '/v1/preview/models', { entity: null, project: 'remote', name: 'remote-unscored', base_model: 'trellis-tiny', return_existing: true })).body;
    const messages = [{ role: 'user', content: 'Name a lake.' }];
    const { body } = await call('POST', '/v1/chat/completions', { model: 'wandb-artifact:///trellis/remote/remote-unscored:step0', messages, n: 3, max_tokens: 6, seed: 5 });
    const groups = [{ trajectories: body.choices.map((choice: unknown, i: number) => ({ messages_and_choices: [...messages, choice], reward: i })) }];
    expect(groups[0]!.trajectories[0].messages_and_choices[1].logprobs).toBeNull();
    const job = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: groups, experimental_config: { allow_training_without_logprobs: false } });
    expect(job.status).toBe(200);
    const events = await eventsUntilEnd(job.body.id);
    expect(events.map((event: { type: string }) => event.type)).toEqual(['training_started', 'gradient_step', 'training_ended']);
    expect(Number.isFinite(events[1].data.loss)).toBe(true);
    expect((await call('GET', `/v1/preview/models/${model.id}/checkpoints`)).body.data.map((c: { step: number }) => c.step)).toEqual([1]);
    // What the worker leased: the choices as sent, and the flag that tells it to score them itself.
    const { rows } = await sql<{ work: any }>`select work from training.remote_assignments where job_id = ${job.body.id}`.execute(platform.db.root);
    expect(rows[0]!.work.config).toMatchObject({ allow_training_without_logprobs: true });
    expect(rows[0]!.work.trajectory_groups[0].trajectories[0].messages_and_choices[1].logprobs).toBeNull();
  });

  it('a job the remote worker fails ends with its message', async () => {
    const model = (await call('POST', '/v1/preview/models', { entity: null, project: 'remote', name: 'remote-bad', base_model: 'trellis-tiny', return_existing: true })).body;
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
    const events = await eventsUntilEnd(job.body.id);
    expect(events.at(-1)).toMatchObject({ type: 'training_failed', data: { error_message: expect.stringContaining('remote worker live') } });
    expect((await call('GET', `/v1/preview/training-jobs/${job.body.id}`)).body.status).toBe('FAILED');
  });
});
