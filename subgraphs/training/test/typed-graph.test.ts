import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../platform/graphql/connection.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import type { TrainingServices } from '../services.js';

/**
 * The training graph as a GraphQL client (a dashboard) meets it: typed inputs with the REST schemas' rules reported
 * at GraphQL paths, typed results, connections with bounded pages and opaque cursors, and the project/job fields
 * a dashboard draws from — while the REST routes running the same operations keep their wire shapes and locations.
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

async function rest(method: string, path: string, body?: unknown) {
  const response = await platform.fetch(`/training${path}`, {
    method,
    headers: { authorization: `Bearer ${platform.adminKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, text: await response.clone().text(), body: (await response.json()) as any };
}

const gql = async (query: string, variables: Record<string, unknown> = {}) => (await platform.graphql(query, variables)).body as any;

const CREATE_MODEL = `mutation($input: TrainingModelCreateInput!) { createTrainingModel(input: $input) { id entity project name baseModel } }`;
/** Over REST, which also creates the project on first use (the typed mutation is tested on its own below). */
const createModel = async (project: string, name: string) => {
  const created = await rest('POST', '/v1/preview/models', { project, name, base_model: 'trellis-tiny', return_existing: true });
  expect(created.status).toBe(200);
  return created.body as { id: string };
};

const choice = { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Paris' }, logprobs: { content: [{ token: 'Paris', logprob: -0.1, bytes: null, top_logprobs: [] }] } };
const trajectory = (reward: number) => ({ messagesAndChoices: [{ role: 'user', content: 'Capital of France?' }, choice], reward });

describe('typed mutations', () => {
  it('createTrainingModel records what REST reads back', async () => {
    const body = await gql(CREATE_MODEL, { input: { entity: null, project: 'typed', name: 'agent', baseModel: 'trellis-tiny', returnExisting: true } });
    const model = body.data.createTrainingModel;
    expect(model).toMatchObject({ entity: 'trellis', project: 'typed', name: 'agent', baseModel: 'trellis-tiny' });
    const again = await rest('POST', '/v1/preview/models', { project: 'typed', name: 'agent', base_model: 'trellis-tiny', return_existing: true });
    expect(again.body).toEqual({ id: model.id, entity: 'trellis', project: 'typed', name: 'agent', base_model: 'trellis-tiny', run_id: expect.any(String) });
  });

  it('createRlTrainingJob and logTrajectories keep typed fields, enums and undeclared keys (extra) as REST would', async () => {
    const model = await createModel('typed', 'rl');
    const job = await gql(`mutation($input: RlTrainingJobCreateInput!) { createRlTrainingJob(input: $input) { id kind status model { id name } } }`, {
      input: {
        modelId: model.id,
        trajectoryGroups: [{ trajectories: [{ ...trajectory(1), extra: { art_version: '0.5' } }, trajectory(0)] }],
        experimentalConfig: { learningRate: 1e-4, lossFn: 'PPO', extra: { beta: 0.1 } },
      },
    });
    expect(job.errors).toBeUndefined();
    expect(job.data.createRlTrainingJob).toMatchObject({ kind: 'RL', status: 'QUEUED', model: { id: model.id, name: 'rl' } });
    const read = await rest('GET', `/v1/preview/training-jobs/${job.data.createRlTrainingJob.id}`);
    expect(read.body).toMatchObject({ id: job.data.createRlTrainingJob.id, model_id: model.id, kind: 'RL', status: 'QUEUED' });
    const config = await gql(`query($id: ID!) { trainingJob(id: $id) { config } }`, { id: job.data.createRlTrainingJob.id });
    expect(config.data.trainingJob.config.experimental_config).toEqual({ learning_rate: 1e-4, loss_fn: 'ppo', beta: 0.1 });
    const stored = await training.store.job(job.data.createRlTrainingJob.id);
    expect((stored!.request.trajectory_groups as any)[0].trajectories[0]).toMatchObject({ art_version: '0.5', reward: 1, messages_and_choices: expect.any(Array) });

    const logged = await gql(`mutation($id: ID!, $input: TrajectoryLogInput!) { logTrajectories(modelId: $id, input: $input) }`, {
      id: model.id,
      input: { split: 'val', trajectoryGroups: [{ trajectories: [trajectory(0.5)], metrics: { accuracy: 1 } }] },
    });
    expect(logged.data.logTrajectories).toBe(true);
    const logs = await gql(`query($id: ID!) { trainingModel(id: $id) { trajectoryLogs(split: "val") { nodes { split trajectoryGroups } } } }`, { id: model.id });
    expect(logs.data.trainingModel.trajectoryLogs.nodes).toEqual([
      { split: 'val', trajectoryGroups: [{ trajectories: [{ messages_and_choices: trajectory(0.5).messagesAndChoices, reward: 0.5 }], metrics: { accuracy: 1 } }] },
    ]);
  });

  it('deleteTrainingCheckpoints takes the steps as a typed list', async () => {
    const model = await createModel('typed', 'pruned');
    await seedCheckpoints(model.id, [1, 2]);
    const deleted = await gql(`mutation($id: ID!, $input: TrainingCheckpointDeleteInput!) { deleteTrainingCheckpoints(modelId: $id, input: $input) { deletedCount notFoundSteps } }`, {
      id: model.id,
      input: { steps: [2, 9] },
    });
    expect(deleted.data.deleteTrainingCheckpoints).toEqual({ deletedCount: 1, notFoundSteps: [9] });
    expect((await rest('GET', `/v1/preview/models/${model.id}/checkpoints`)).body.data.map((c: { step: number }) => c.step)).toEqual([1]);
  });

  it("reports the REST schema's rules at GraphQL paths, and REST still at the body's", async () => {
    const model = await createModel('typed', 'strict');
    const badId = await gql(`mutation($input: RlTrainingJobCreateInput!) { createRlTrainingJob(input: $input) { id } }`, {
      input: { modelId: 'not-a-uuid', trajectoryGroups: [{ trajectories: [trajectory(1)] }] },
    });
    expect(badId.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', field: ['input', 'modelId'] });
    expect(badId.errors[0].extensions.issues[0].loc).toEqual(['input', 'modelId']);

    // Choices without logprobs are accepted on both surfaces alike (the trainer scores them).
    const noLogprobs = { messagesAndChoices: [{ role: 'user', content: 'q' }, { ...choice, logprobs: null }], reward: 1 };
    const accepted = await gql(`mutation($input: RlTrainingJobCreateInput!) { createRlTrainingJob(input: $input) { id } }`, {
      input: { modelId: model.id, trajectoryGroups: [{ trajectories: [noLogprobs] }] },
    });
    expect(accepted.errors).toBeUndefined();
    expect(accepted.data.createRlTrainingJob.id).toEqual(expect.any(String));
    const restAccepted = await rest('POST', '/v1/preview/training-jobs', {
      model_id: model.id,
      trajectory_groups: [{ trajectories: [{ messages_and_choices: noLogprobs.messagesAndChoices, reward: 1 }] }],
    });
    expect(restAccepted.status).toBe(200);

    const taken = await gql(CREATE_MODEL, { input: { project: 'typed', name: 'strict', baseModel: 'other-base', returnExisting: true } });
    expect(taken.errors[0].extensions.issues[0].loc).toEqual(['input', 'baseModel']);
    const restTaken = await rest('POST', '/v1/preview/models', { project: 'typed', name: 'strict', base_model: 'other-base', return_existing: true });
    expect(restTaken.body.detail[0].loc).toEqual(['body', 'base_model']);

    const mismatch = await gql(`mutation($id: ID!, $input: TrajectoryLogInput!) { logTrajectories(modelId: $id, input: $input) }`, {
      id: model.id,
      input: { modelId: '00000000-0000-4000-8000-000000000000', split: 'train', trajectoryGroups: [] },
    });
    expect(mismatch.errors[0].extensions.field).toEqual(['input', 'modelId']);
  });

  it('createTrainingChatCompletion takes a typed request and answers a typed completion; REST writes the same OpenAI JSON', async () => {
    const request = { model: 'trellis-tiny', messages: [{ role: 'USER', content: 'Name a city.' }], maxTokens: 3, temperature: 0, logprobs: true, topLogprobs: 1 };
    const typed = await gql(
      `mutation($r: ChatCompletionRequestInput!) { createTrainingChatCompletion(request: $r) {
        object model choices { index message { role content } finishReason logprobs { content { token logprob topLogprobs { token } } } }
        usage { promptTokens completionTokens totalTokens } } }`,
      { r: request },
    );
    expect(typed.errors).toBeUndefined();
    const completion = typed.data.createTrainingChatCompletion;
    expect(completion).toMatchObject({ object: 'chat.completion', model: 'trellis-tiny', choices: [{ index: 0, message: { role: 'assistant' } }] });
    expect(completion.choices[0].logprobs.content[0].topLogprobs).toHaveLength(1);
    expect(completion.usage.totalTokens).toBe(completion.usage.promptTokens + completion.usage.completionTokens);

    const wire = await rest('POST', '/v1/chat/completions', { model: 'trellis-tiny', messages: [{ role: 'user', content: 'Name a city.' }], max_tokens: 3, temperature: 0, logprobs: true });
    expect(wire.status).toBe(200);
    expect(Object.keys(wire.body)).toEqual(['id', 'object', 'created', 'model', 'choices', 'usage']);
    expect(Object.keys(wire.body.choices[0])).toEqual(['index', 'message', 'finish_reason', 'logprobs']);
    expect(Object.keys(wire.body.choices[0].logprobs.content[0])).toEqual(['token', 'logprob', 'bytes', 'top_logprobs']);
    expect(wire.body.choices[0].message.content).toBe(completion.choices[0].message.content);
    expect(wire.body.usage).toEqual({ prompt_tokens: completion.usage.promptTokens, completion_tokens: completion.usage.completionTokens, total_tokens: completion.usage.totalTokens });

    // The request schema's rules at the GraphQL path of the request.
    const bad = await gql(`mutation($r: ChatCompletionRequestInput!) { createTrainingChatCompletion(request: $r) { id } }`, { r: { ...request, messages: [] } });
    expect(bad.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['request', 'messages'] });
  });

  it('health and the system check are typed; REST answers the same JSON as before', async () => {
    const body = await gql('{ trainingHealth { status } trainingSystemCheck { success checks { name success errors details } } }');
    expect(body.data.trainingHealth).toEqual({ status: 'ok' });
    expect(body.data.trainingSystemCheck.checks.map((check: { name: string }) => check.name)).toEqual(['api', 'database', 'job_store', 'job_queue', 'workers']);
    expect((await rest('GET', '/v1/health')).text).toBe('{"status":"ok"}');
    const check = await rest('GET', '/v1/system-check');
    expect(Object.keys(check.body)).toEqual(['success', 'checks']);
    expect(Object.keys(check.body.checks)).toEqual(['api', 'database', 'job_store', 'job_queue', 'workers']);
    expect(check.body.checks.api).toEqual({ success: true, duration: expect.any(Number), errors: [] });
    expect(Object.keys(check.body.checks.job_store)).toEqual(['success', 'duration', 'errors', 'details']);
  });
});

async function seedCheckpoints(modelId: string, steps: number[]) {
  await training.store.transaction(async (trx) => {
    for (const step of steps) await training.store.insertCheckpoint(trx, { model_id: modelId, step, metrics: { loss: 1 / step }, adapter_config: null, adapter_weights: null });
  });
}

async function seedJob(modelId: string, status?: 'RUNNING' | 'FAILED') {
  return training.store.transaction(async (trx) => {
    const job = await training.store.insertJob(trx, { model_id: modelId, kind: 'RL', created_by_id: 'x', created_by: 'admin', request: {} });
    if (status) await training.store.updateJob(trx, job.id, { status });
    return job;
  });
}

describe('connections', () => {
  let modelId: string;
  beforeAll(async () => {
    modelId = (await createModel('paged', 'model')).id;
    await seedCheckpoints(modelId, [3, 1, 2, 5, 4]);
  });

  /** Every node of a connection, `first` at a time, following endCursor; the field is read from `trainingModel`/`trainingJob`/`project`. */
  async function walk(query: string, variables: Record<string, unknown>, pick: (data: any) => any, first: number) {
    const nodes: any[] = [];
    let after: string | null = null;
    for (let pages = 1; pages <= 20; pages++) {
      const body = await gql(query, { ...variables, first, after });
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const page = pick(body.data);
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      nodes.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) return { nodes, pages };
      after = page.pageInfo.endCursor;
    }
    throw new Error('too many pages');
  }

  const CHECKPOINTS = `query($id: ID!, $first: Int, $after: String, $order: TrainingCheckpointOrder) {
    trainingModel(id: $id) { checkpoints(first: $first, after: $after, order: $order) { nodes { step aliases } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`;

  it('pages checkpoints by step in either order, with their aliases, as REST lists them', async () => {
    const asc = await walk(CHECKPOINTS, { id: modelId }, (data) => data.trainingModel.checkpoints, 2);
    expect(asc).toEqual({ nodes: [1, 2, 3, 4, 5].map((step) => ({ step, aliases: step === 5 ? ['step5', 'latest'] : [`step${step}`] })), pages: 3 });
    const desc = await walk(CHECKPOINTS, { id: modelId, order: 'DESC' }, (data) => data.trainingModel.checkpoints, 3);
    expect(desc.nodes.map((node: { step: number }) => node.step)).toEqual([5, 4, 3, 2, 1]);
    // REST's `after` is the id of the last checkpoint seen; its envelope is derived from the same page.
    const first = await rest('GET', `/v1/preview/models/${modelId}/checkpoints?limit=2&order=desc`);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, first_id: first.body.data[0].id, last_id: first.body.data[1].id });
    expect(Object.keys(first.body.data[0])).toEqual(['id', 'step', 'metrics']);
    const next = await rest('GET', `/v1/preview/models/${modelId}/checkpoints?limit=2&order=desc&after=${first.body.last_id}`);
    expect(next.body.data.map((c: { step: number }) => c.step)).toEqual([3, 2]);
  });

  it('pages job events in order, and REST pages them by event id', async () => {
    const job = await seedJob(modelId);
    await training.store.transaction(async (trx) => {
      await training.store.insertJobEvent(trx, job.id, 'training_started', { num_sequences: 2 });
      for (let step = 1; step <= 3; step++) await training.store.insertJobEvent(trx, job.id, 'gradient_step', { step, loss: 1 / step });
      await training.store.insertJobEvent(trx, job.id, 'training_ended', { step: 3 });
    });
    const events = await walk(
      `query($id: ID!, $first: Int, $after: String) { trainingJob(id: $id) { events(first: $first, after: $after) { nodes { type } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`,
      { id: job.id },
      (data) => data.trainingJob.events,
      2,
    );
    expect(events.nodes.map((event: { type: string }) => event.type)).toEqual(['training_started', 'gradient_step', 'gradient_step', 'gradient_step', 'training_ended']);
    const restFirst = await rest('GET', `/v1/preview/training-jobs/${job.id}/events?limit=4`);
    const restNext = await rest('GET', `/v1/preview/training-jobs/${job.id}/events?after=${restFirst.body.last_id}`);
    expect(restNext.body).toMatchObject({ data: [{ type: 'training_ended', data: { step: 3 } }], has_more: false });
  });

  it('pages a model\'s jobs and trajectory logs newest first', async () => {
    const model = await createModel('paged', 'jobs');
    const jobs = [];
    for (let i = 0; i < 5; i++) jobs.push((await seedJob(model.id)).id);
    const walked = await walk(
      `query($id: ID!, $first: Int, $after: String) { trainingModel(id: $id) { jobs(first: $first, after: $after) { nodes { id } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`,
      { id: model.id },
      (data) => data.trainingModel.jobs,
      2,
    );
    expect(walked).toEqual({ nodes: [...jobs].reverse().map((id) => ({ id })), pages: 3 });
    const restJobs = await rest('GET', `/v1/preview/models/${model.id}/training-jobs?limit=500`);
    expect(restJobs.body).toMatchObject({ object: 'list', has_more: false, first_id: jobs[4], last_id: jobs[0] });

    for (const split of ['a', 'b', 'c']) await rest('POST', `/v1/preview/models/${model.id}/log`, { split, trajectory_groups: [] });
    const logs = await walk(
      `query($id: ID!, $first: Int, $after: String) { trainingModel(id: $id) { trajectoryLogs(first: $first, after: $after) { nodes { split } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`,
      { id: model.id },
      (data) => data.trainingModel.trajectoryLogs,
      2,
    );
    expect(logs.nodes).toEqual([{ split: 'c' }, { split: 'b' }, { split: 'a' }]);
  });

  it('a page beyond the maximum, a negative page and a foreign cursor are validation errors at the argument; REST keeps its query locations', async () => {
    const job = await seedJob(modelId);
    const cases: [string, Record<string, unknown>, number][] = [
      [`query($id: ID!, $first: Int, $after: String) { trainingModel(id: $id) { checkpoints(first: $first, after: $after) { nodes { id } } } }`, { id: modelId }, 100],
      [`query($id: ID!, $first: Int, $after: String) { trainingModel(id: $id) { jobs(first: $first, after: $after) { nodes { id } } } }`, { id: modelId }, 100],
      [`query($id: ID!, $first: Int, $after: String) { trainingModel(id: $id) { trajectoryLogs(first: $first, after: $after) { nodes { id } } } }`, { id: modelId }, 100],
      [`query($id: ID!, $first: Int, $after: String) { trainingJob(id: $id) { events(first: $first, after: $after) { nodes { id } } } }`, { id: job.id }, 1000],
      [`query($first: Int, $after: String) { project(entity: "trellis", name: "paged") { trainingModels(first: $first, after: $after) { nodes { id } } } }`, {}, 100],
      [`query($first: Int, $after: String) { project(entity: "trellis", name: "paged") { trainingJobs(first: $first, after: $after) { nodes { id } } } }`, {}, 100],
    ];
    for (const [query, variables, max] of cases) {
      expect((await gql(query, { ...variables, first: max })).errors, query).toBeUndefined();
      for (const first of [max + 1, -1]) {
        const beyond = await gql(query, { ...variables, first });
        expect(beyond.errors[0].extensions, query).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', issues: [{ loc: ['first'], type: 'less_than_equal' }] });
      }
      // Not a cursor at all, a cursor of another shape, and (for the id-keyed lists) an id that is not in this list.
      for (const after of ['not a cursor', encodeCursor(['a', 1]), encodeCursor(-5), encodeCursor(job.id)]) {
        if (after === encodeCursor(job.id) && query.includes('events')) continue;
        const foreign = await gql(query, { ...variables, after });
        expect(foreign.errors?.[0]?.extensions, `${query} ${after}`).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', field: ['after'] });
      }
    }
    const restLimit = await rest('GET', `/v1/preview/models/${modelId}/checkpoints?limit=101`);
    expect(restLimit).toMatchObject({ status: 422, body: { detail: [{ loc: ['query', 'limit'] }] } });
    const restAfter = await rest('GET', `/v1/preview/models/${modelId}/checkpoints?after=${job.id}`);
    expect(restAfter).toMatchObject({ status: 422, body: { detail: [{ loc: ['query', 'after'] }] } });
    const restEvents = await rest('GET', `/v1/preview/training-jobs/${job.id}/events?limit=1001`);
    expect(restEvents).toMatchObject({ status: 422, body: { detail: [{ loc: ['query', 'limit'] }] } });
  });
});

describe('what a dashboard reads', () => {
  it('Project.trainingModels and Project.trainingJobs (newest first, by status), TrainingJob.model and TrainingJob.metrics', async () => {
    const first = await createModel('dash', 'first');
    const second = await createModel('dash', 'second');
    const queued = await seedJob(first.id);
    const running = await seedJob(second.id, 'RUNNING');
    const failed = await seedJob(first.id, 'FAILED');
    await training.store.transaction(async (trx) => {
      await training.store.insertJobEvent(trx, running.id, 'training_started', { num_sequences: 4 });
      for (let step = 1; step <= 3; step++) {
        await training.store.insertJobEvent(trx, running.id, 'gradient_step', { step, loss: 2 / step, grad_norm: 0.5, learning_rate: 1e-4, reward: step / 10, kl: 0.01 });
      }
      // A remote trainer may report metrics of its own, without a step.
      await training.store.insertJobEvent(trx, running.id, 'gradient_step', { loss: 0.4, custom_metric: 7 });
    });

    const body = await gql(`{ project(entity: "trellis", name: "dash") {
      trainingModelCount trainingJobCount
      trainingModels { nodes { name } }
      all: trainingJobs { nodes { id status model { name } } }
      running: trainingJobs(status: RUNNING) { nodes { id metrics { step loss reward gradNorm learningRate kl numTrainableTokens values } } }
    } }`);
    expect(body.errors).toBeUndefined();
    const project = body.data.project;
    expect(project).toMatchObject({ trainingModelCount: 2, trainingJobCount: 3 });
    expect(project.trainingModels.nodes).toEqual([{ name: 'second' }, { name: 'first' }]);
    expect(project.all.nodes).toEqual([
      { id: failed.id, status: 'FAILED', model: { name: 'first' } },
      { id: running.id, status: 'RUNNING', model: { name: 'second' } },
      { id: queued.id, status: 'QUEUED', model: { name: 'first' } },
    ]);
    expect(project.running.nodes).toHaveLength(1);
    expect(project.running.nodes[0].metrics).toEqual([
      ...[1, 2, 3].map((step) => ({
        step,
        loss: 2 / step,
        reward: step / 10,
        gradNorm: 0.5,
        learningRate: 1e-4,
        kl: 0.01,
        numTrainableTokens: null,
        values: { step, loss: 2 / step, grad_norm: 0.5, learning_rate: 1e-4, reward: step / 10, kl: 0.01 },
      })),
      { step: 4, loss: 0.4, reward: null, gradNorm: null, learningRate: null, kl: null, numTrainableTokens: null, values: { loss: 0.4, custom_metric: 7 } },
    ]);

    // Outside the team: FORBIDDEN, nothing listed.
    const outsider = await platform.createUser('typed-outsider', { elsewhere: 'ADMIN' });
    const denied = await platform.graphql('{ project(entity: "trellis", name: "dash") { trainingJobs { nodes { id } } } }', {}, outsider.key);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
