import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { eventually, ok } from '../../automations/test/helpers.js';

/**
 * From traces to a fine-tuned, promoted checkpoint through the public graph and REST only: traced calls become a
 * Weave Dataset (tracing), one row's expected answer is corrected, the version is exported as chat train.jsonl into
 * the registry, one mutation starts an SFT job on it, the job succeeds, its checkpoint answers through training chat
 * and — promoted to `production` — through POST /inference/v1/chat/completions with the OpenAI SDK.
 */
let platform: TestPlatform;
const P = 'trellis/loop';
const PROMPT = 'Name a capital.';

beforeAll(async () => {
  platform = await startTestPlatform();
  const batch = ['Paris', 'Rome', 'Oslo', 'Lima'].flatMap((city, index) => {
    const id = `call-${index}`;
    const startedAt = `2026-03-01T00:00:0${index}.000Z`;
    return [
      { mode: 'start', req: { start: { project_id: P, id, op_name: 'chat', started_at: startedAt, attributes: {}, inputs: { messages: [{ role: 'user', content: PROMPT }] } } } },
      { mode: 'end', req: { end: { project_id: P, id, ended_at: startedAt, summary: {}, output: { role: 'assistant', content: index === 0 ? 'Madrid?' : city } } } },
    ];
  });
  const response = await platform.fetch('/traces/call/upsert_batch', {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  expect(response.status).toBe(200);
  await ok(platform, `mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version } }`, {
    input: { projectId: P, dataset: 'capitals', search: { text: 'capital' }, columns: [{ name: 'question', source: 'inputs.messages' }, { name: 'expected', source: 'output.content' }] },
  });
  // The first call's answer was wrong: corrected in the dataset (its next version).
  await ok(platform, `mutation($input: DatasetRowEditInput!) { editDatasetRow(input: $input) { version } }`, {
    input: { projectId: P, dataset: 'capitals', rowIndex: 0, values: { expected: 'Paris' } },
  });
}, 60_000);
afterAll(async () => {
  await platform?.close();
});

const EXPORT = `mutation($input: TraceDatasetSftExportInput!) { exportTraceDatasetToSft(input: $input) { trainingDataUrl artifact artifactVersion lineCount datasetRef } }`;
const FINE_TUNE = `mutation($input: SftTrainingJobFromDatasetInput!) { createSftTrainingJobFromDataset(input: $input) { id status } }`;

describe('fine-tuning from a dataset built from traces', () => {
  it('refuses a dataset it cannot export, creating no artifact and no job', async () => {
    const missing = await platform.graphql(EXPORT, { input: { project: 'loop', dataset: 'capitals', completionColumn: 'nope' } });
    expect(missing.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
    expect(missing.body.errors[0].extensions.issues[0]).toEqual({ loc: ['input', 'completionColumn'], msg: 'Row 0 has no text in column "nope"', type: 'value_error' });
    const unknown = await platform.graphql(EXPORT, { input: { project: 'loop', dataset: 'no-such-dataset' } });
    expect(unknown.body.errors?.[0]?.extensions?.issues?.[0]?.loc).toEqual(['input', 'dataset']);
    const model = await platform.rest('POST', '/training/v1/preview/models', { project: 'loop', name: 'refused', base_model: 'trellis-tiny' });
    const job = await platform.graphql(FINE_TUNE, { input: { modelId: model.body.id, dataset: { project: 'loop', dataset: 'capitals', promptColumn: 'nope' } } });
    expect(job.body.errors?.[0]?.extensions?.issues?.[0]?.loc).toEqual(['input', 'dataset', 'promptColumn']);
    const registry = await ok(platform, `{ project(entity: "trellis", name: "loop") { artifactCollections { nodes { name } } } }`);
    expect(registry.project.artifactCollections.nodes).toEqual([]);
    expect((await platform.rest('GET', `/training/v1/preview/models/${model.body.id}/training-jobs`)).body.data).toEqual([]);
  });

  it('exports chat JSONL, trains on it, and serves the checkpoint through training chat and, promoted, inference', async () => {
    const exported = await ok(platform, EXPORT, { input: { project: 'loop', dataset: 'capitals', systemPrompt: 'Answer with one word.' } });
    expect(exported.exportTraceDatasetToSft).toMatchObject({ trainingDataUrl: 'wandb-artifact:///trellis/loop/capitals-sft:v0', artifactVersion: 'v0', lineCount: 4 });
    expect(exported.exportTraceDatasetToSft.datasetRef).toMatch(/^weave:\/\/\/trellis\/loop\/object\/capitals:/);
    const file = await ok(platform, `{ artifactVersionByName(entity: "trellis", project: "loop", collection: "capitals-sft", version: "v0") { type file(path: "train.jsonl") { contentBase64 } } }`);
    expect(file.artifactVersionByName.type).toBe('dataset');
    const lines = Buffer.from(file.artifactVersionByName.file.contentBase64, 'base64').toString().trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.messages)).toEqual(
      ['Paris', 'Rome', 'Oslo', 'Lima'].map((city) => [
        { role: 'system', content: 'Answer with one word.' },
        { role: 'user', content: PROMPT },
        { role: 'assistant', content: city },
      ]),
    );

    const model = await platform.rest('POST', '/training/v1/preview/models', { project: 'loop', name: 'capital-tuned', base_model: 'trellis-tiny' });
    const started = await ok(platform, FINE_TUNE, {
      input: { modelId: model.body.id, dataset: { project: 'loop', dataset: 'capitals', systemPrompt: 'Answer with one word.' }, config: { batchSize: 2, learningRate: 0.05 } },
    });
    const jobId = started.createSftTrainingJobFromDataset.id;
    const job = await eventually(async () => {
      const read = await platform.rest('GET', `/training/v1/preview/training-jobs/${jobId}`);
      return ['SUCCEEDED', 'FAILED'].includes(read.body.status) ? read.body : undefined;
    }, 120_000);
    expect(job).toMatchObject({ kind: 'SFT', status: 'SUCCEEDED' });
    // It trained on a second export of the dataset: v1 of the artifact, the same four lines.
    const exports = await ok(platform, `{ v1: artifactVersionByName(entity: "trellis", project: "loop", collection: "capitals-sft", version: "v1") { file(path: "train.jsonl") { contentBase64 } } }`);
    expect(exports.v1.file.contentBase64).toBe(file.artifactVersionByName.file.contentBase64);
    const checkpoints = await platform.rest('GET', `/training/v1/preview/models/${model.body.id}/checkpoints`);
    const step = checkpoints.body.data.at(-1).step as number;

    const params = { messages: [{ role: 'user' as const, content: PROMPT }], max_tokens: 4, temperature: 0, seed: 3, logprobs: true };
    const training = async (name: string) => (await platform.rest('POST', '/training/v1/chat/completions', { model: name, ...params })).body.choices[0];
    const base = await training('trellis-tiny');
    const tuned = await training(`wandb-artifact:///trellis/loop/capital-tuned:step${step}`);
    expect(tuned.logprobs.content[0].logprob).not.toBeCloseTo(base.logprobs.content[0].logprob, 4);

    await ok(platform, `mutation($id: ID!) { promoteTrainingCheckpoint(modelId: $id, input: { step: ${step}, alias: "production" }) { aliases } }`, { id: model.body.id });
    const openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: P });
    // The registry moves its alias from the promotion event, moments later.
    const served = await eventually(async () => {
      try {
        return await openai.chat.completions.create({ model: 'trellis/loop/capital-tuned:production', ...params });
      } catch (error) {
        if ((error as { status?: number }).status === 404) return undefined;
        throw error;
      }
    }, 20_000);
    expect(served.choices[0]!.message.content).toBe(tuned.message.content);
    expect(served.choices[0]!.logprobs!.content![0]!.logprob).toBeCloseTo(tuned.logprobs.content[0].logprob, 4);
  }, 180_000);
});
