import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { Receiver } from '../../automations/test/receiver.js';
import { createAutomation, createWebhook, eventually, ok, TEST_ENV } from '../../automations/test/helpers.js';

/**
 * Promotion end to end, through the public graph and REST only: two SFT jobs make two checkpoints; promoting the first
 * to `production` shows in the checkpoint's aliases, training chat serves `wandb-artifact:///…:production`, the
 * OpenAI SDK's `trellis/promo/<model>:production` on POST /inference/v1/chat/completions is answered by that
 * checkpoint (same seeded answer and logprobs as training chat's `:step<N>`), traced in the caller's project and
 * counted; moving the alias to the second changes the answer; an automation on ADD_ARTIFACT_ALIAS fires once per
 * promotion (not for a promotion that moves nothing); bad input and outsiders change nothing.
 */
let platform: TestPlatform;
let receiver: Receiver;
let modelId: string;
/** The steps of the two checkpoints the set-up trains. */
let first: number;
let second: number;
const MODEL = 'promo-model';
const PROMPT = [{ role: 'user' as const, content: 'Name a capital.' }];
const PARAMS = { max_tokens: 6, temperature: 0, seed: 7, logprobs: true } as const;

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
  receiver = await new Receiver().start();
  const created = await rest('POST', '/training/v1/preview/models', { project: 'promo', name: MODEL, base_model: 'trellis-tiny' });
  modelId = created.body.id;
  const lines = ['Paris', 'Rome', 'Oslo', 'Lima'].map((city) => JSON.stringify({ messages: [...PROMPT, { role: 'assistant', content: city }] }));
  const upload = await rest('POST', '/registry/v1/artifacts/trellis/promo/capitals', {
    files: [{ path: 'train.jsonl', content_base64: Buffer.from(`${lines.join('\n')}\n`).toString('base64') }],
  });
  expect(upload.status).toBe(200);
  // Each SFT job saves one checkpoint (its last step); two jobs make two.
  for (let job = 0; job < 2; job++) {
    const submitted = await rest('POST', '/training/v1/preview/sft-training-jobs', {
      model_id: modelId,
      training_data_url: 'wandb-artifact:///trellis/promo/capitals:v0',
      config: { batch_size: 2, learning_rate: 0.05 },
    });
    expect(submitted.status).toBe(200);
    await eventually(async () => ((await rest('GET', `/training/v1/preview/training-jobs/${submitted.body.id}`)).body.status === 'SUCCEEDED' ? true : undefined), 120_000);
  }
  [first, second] = Object.keys(await aliasesByStep()).map(Number) as [number, number];
  const hook = await createWebhook(platform, { name: 'promotions', endpointUrl: receiver.url('/promoted') });
  await createAutomation(platform, {
    scopeName: 'promo',
    name: 'on-production',
    event: { type: 'ADD_ARTIFACT_ALIAS', aliasRegex: '^production$' }, webhookId: hook,
    payload: JSON.stringify({ event_type: '${event_type}', alias: '${alias}', artifact_collection_name: '${artifact_collection_name}', artifact_version_string: '${artifact_version_string}' }),
  });
}, 180_000);

afterAll(async () => {
  await platform?.close();
  await receiver?.close();
});

async function rest(method: string, path: string, body?: unknown, key = platform.adminKey) {
  const response = await platform.fetch(path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

const PROMOTE = `mutation($id: ID!, $input: TrainingCheckpointPromoteInput!) { promoteTrainingCheckpoint(modelId: $id, input: $input) { step aliases } }`;
const promote = (step: number, alias = 'production', key?: string) => platform.graphql(PROMOTE, { id: modelId, input: { step, alias } }, key);

async function aliasesByStep(): Promise<Record<number, string[]>> {
  const data = await ok(platform, `query($id: ID!) { trainingModel(id: $id) { checkpoints { nodes { step aliases } } } }`, { id: modelId });
  return Object.fromEntries(data.trainingModel.checkpoints.nodes.map((node: { step: number; aliases: string[] }) => [node.step, node.aliases]));
}

const openai = (key = platform.adminKey) => new OpenAI({ apiKey: key, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: 'trellis/promo' });
/** The ids `models.list()` answers (the OpenAI SDK pages through GET /models). */
async function listedIds(key?: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const model of openai(key).models.list()) ids.push(model.id);
  return ids;
}

async function inferenceAnswer(model: string) {
  const completion = await openai().chat.completions.create({ model, messages: PROMPT, ...PARAMS });
  return { text: completion.choices[0]!.message.content, logprobs: completion.choices[0]!.logprobs!.content!.map((entry) => entry.logprob) };
}

async function trainingAnswer(model: string) {
  const response = await rest('POST', '/training/v1/chat/completions', { model, messages: PROMPT, ...PARAMS });
  expect(response.status).toBe(200);
  const choice = response.body.choices[0];
  return { text: choice.message.content as string, logprobs: (choice.logprobs.content as { logprob: number }[]).map((entry) => entry.logprob) };
}

function expectSameAnswer(actual: { text: string | null; logprobs: number[] }, expected: { text: string; logprobs: number[] }) {
  expect(actual.text).toBe(expected.text);
  expect(actual.logprobs).toHaveLength(expected.logprobs.length);
  actual.logprobs.forEach((logprob, index) => expect(logprob).toBeCloseTo(expected.logprobs[index]!, 4));
}

describe('promoting a checkpoint', () => {
  it('refuses bad input and outsiders, changing nothing', async () => {
    const before = await aliasesByStep();
    expect(before).toEqual({ [first]: [`step${first}`], [second]: [`step${second}`, 'latest'] });
    const reserved = await promote(first, 'latest');
    expect(reserved.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
    const malformed = await promote(first, 'pro/duction');
    expect(malformed.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
    const noStep = await promote(9);
    expect(noStep.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
    expect(noStep.body.errors?.[0]?.extensions?.issues).toEqual([{ loc: ['input', 'step'], msg: `Model "${MODEL}" has no checkpoint at step 9`, type: 'value_error' }]);
    const outsider = await platform.createUser('promo-outsider', { outsiders: 'ADMIN' });
    const forbidden = await promote(first, 'production', outsider.key);
    expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await aliasesByStep()).toEqual(before);
    // Nothing is served under the alias yet.
    const training = await rest('POST', '/training/v1/chat/completions', { model: `wandb-artifact:///trellis/promo/${MODEL}:production`, messages: PROMPT });
    expect(training.status).toBe(404);
    await expect(inferenceAnswer(`trellis/promo/${MODEL}:production`)).rejects.toMatchObject({ status: 404 });
    await expect(openai().models.retrieve(`trellis/promo/${MODEL}:production`)).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
    // Nor listed: `latest` and the per-step aliases are no promotion.
    const listed = await listedIds();
    expect(listed).toContain('trellis-tiny');
    expect(listed.filter((id) => id.includes(MODEL))).toEqual([]);
  });

  it('serves the promoted checkpoint through training chat and inference, follows a move, and fires the automation once per promotion', async () => {
    const promoted = await promote(first);
    expect(promoted.body.errors).toBeUndefined();
    expect(promoted.body.data.promoteTrainingCheckpoint).toEqual({ step: first, aliases: [`step${first}`, 'production'] });
    expect(await aliasesByStep()).toEqual({ [first]: [`step${first}`, 'production'], [second]: [`step${second}`, 'latest'] });

    const atFirst = await trainingAnswer(`wandb-artifact:///trellis/promo/${MODEL}:step${first}`);
    const atSecond = await trainingAnswer(`wandb-artifact:///trellis/promo/${MODEL}:step${second}`);
    expect(atFirst.logprobs[0]).not.toBeCloseTo(atSecond.logprobs[0]!, 4);
    expectSameAnswer(await trainingAnswer(`wandb-artifact:///trellis/promo/${MODEL}:production`), atFirst);

    // The registry moves its alias from the promotion event; the automation's webhook says it has.
    const [delivered] = await receiver.waitFor(1, (request) => request.path === '/promoted', 20_000);
    expect(JSON.parse(delivered!.body)).toMatchObject({ event_type: 'ADD_ARTIFACT_ALIAS', alias: 'production', artifact_collection_name: MODEL });
    expectSameAnswer(await inferenceAnswer(`trellis/promo/${MODEL}:production`), atFirst);
    // What the client may call, it may also retrieve (the OpenAI SDK's models.retrieve, as LangChain and others do).
    const retrieved = await openai().models.retrieve(`trellis/promo/${MODEL}:production`);
    expect(retrieved).toMatchObject({ id: `trellis/promo/${MODEL}:production`, object: 'model', owned_by: 'trellis', root: 'trellis-tiny' });
    expect(retrieved.created).toBeGreaterThan(0);
    // And listed, so model pickers that read GET /models (Open WebUI, LangChain's tooling) offer it; for the team's
    // members only.
    const member = await platform.createUser('promo-member', { trellis: 'MEMBER' });
    const outsider = await platform.createUser('promo-lister-outsider', { listers: 'ADMIN' });
    for (const key of [platform.adminKey, member.key]) expect(await listedIds(key)).toEqual(expect.arrayContaining(['trellis-tiny', `trellis/promo/${MODEL}:production`]));
    expect((await listedIds(outsider.key)).filter((id) => id.includes(MODEL))).toEqual([]);
    const listedModel = (await openai(member.key).models.list()).data.find((model) => model.id === `trellis/promo/${MODEL}:production`);
    expect(listedModel).toMatchObject({ object: 'model', owned_by: 'trellis', created: retrieved.created });

    const moved = await promote(second);
    expect(moved.body.data.promoteTrainingCheckpoint).toEqual({ step: second, aliases: [`step${second}`, 'latest', 'production'] });
    expect(await aliasesByStep()).toEqual({ [first]: [`step${first}`], [second]: [`step${second}`, 'latest', 'production'] });
    expectSameAnswer(await trainingAnswer(`wandb-artifact:///trellis/promo/${MODEL}:production`), atSecond);
    await receiver.waitFor(2, (request) => request.path === '/promoted', 20_000);
    expectSameAnswer(await inferenceAnswer(`trellis/promo/${MODEL}:production`), atSecond);
    // Streamed too (server-sent events through the same backend).
    const stream = await openai().chat.completions.create({ model: `trellis/promo/${MODEL}:production`, messages: PROMPT, ...PARAMS, logprobs: false, stream: true });
    let streamed = '';
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe(atSecond.text);

    // Promoting where it already points moves nothing and announces nothing.
    expect((await promote(second)).body.data.promoteTrainingCheckpoint.step).toBe(second);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.requests.filter((request) => request.path === '/promoted')).toHaveLength(2);

    // The inference calls were traced in the caller's project and counted like any inference call.
    const calls = await eventually(async () => {
      const data = await ok(platform, `{ project(entity: "trellis", name: "promo") { calls(first: 20) { nodes { opName inputs } } } }`);
      const nodes = data.project.calls.nodes.filter((node: { inputs: { model?: string } }) => node.inputs?.model === `trellis/promo/${MODEL}:production`);
      return nodes.length >= 3 ? nodes : undefined;
    }, 15_000);
    expect(calls[0].opName).toBe(`inference.chat.completions/trellis/promo/${MODEL}:production`);
    const usage = await eventually(async () => {
      const data = await ok(platform, `{ project(entity: "trellis", name: "promo") { inferenceUsageRecords(first: 50) { nodes { model status backend } } } }`);
      const records = data.project.inferenceUsageRecords.nodes.filter((node: { model: string }) => node.model === `trellis/promo/${MODEL}:production`);
      return records.length >= 4 ? records : undefined;
    }, 15_000);
    expect(usage.map((record: { status: number }) => record.status).sort()).toEqual([200, 200, 200, 404]);
  });
});
