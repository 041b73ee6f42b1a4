import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SubgraphModule } from '../../../platform/subgraph.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { SUBGRAPHS } from '../../index.js';
import { eventually, ok } from '../../automations/test/helpers.js';

/**
 * evaluateDataset with a training checkpoint ref (`wandb-artifact:///…:step<N>`) right after its job SUCCEEDED, before
 * the registry has recorded the checkpoint. Training chat serves a checkpoint from training's own tables as soon as
 * the job succeeds; the registry's copy follows from the job's platform event, moments later. To hold that moment
 * still, this platform runs the registry without its workers (its training-run recorder never consumes the event):
 * the state a client sees when it evaluates between the job's end and the recorder's turn. The evaluation must be
 * accepted and answered by the checkpoint; a step training does not have is still refused.
 */
const ENTITY = 'trellis';
const PROJECT = 'fresh';
const P = `${ENTITY}/${PROJECT}`;
const MODEL = 'fresh-model';
const PROMPT = 'Name a capital.';
let platform: TestPlatform;
let step: number;

/** The registry subgraph, started without its background workers (the training-run recorder). */
const registryHeldBack: SubgraphModule<any> = (() => {
  const registry = SUBGRAPHS.find((subgraph) => subgraph.name === 'registry')!;
  return { ...registry, start: (dependencies, options) => registry.start(dependencies, { ...options, workers: false }) };
})();

beforeAll(async () => {
  platform = await startTestPlatform({ subgraphs: SUBGRAPHS.map((subgraph) => (subgraph.name === 'registry' ? registryHeldBack : subgraph)) });
  await ok(platform, `mutation { createProject(entity: "${ENTITY}", name: "${PROJECT}") { fullName } }`);
  // A one-row dataset to evaluate, from a traced call.
  const now = new Date().toISOString();
  const upserted = await platform.rest('POST', '/traces/call/upsert_batch', {
    batch: [
      { mode: 'start', req: { start: { project_id: P, id: 'q-0', op_name: 'ask', started_at: now, attributes: {}, inputs: { question: PROMPT } } } },
      { mode: 'end', req: { end: { project_id: P, id: 'q-0', ended_at: now, output: 'Paris', summary: {} } } },
    ],
  });
  expect(upserted.status).toBe(200);
  await ok(platform, `mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version } }`, {
    input: { projectId: P, dataset: 'capitals', callIds: ['q-0'], columns: [{ name: 'question', source: 'inputs.question' }, { name: 'expected', source: 'output' }] },
  });
  // A checkpoint: one SFT job on a small artifact saves its last step.
  const created = await platform.rest('POST', '/training/v1/preview/models', { project: PROJECT, name: MODEL, base_model: 'trellis-tiny' });
  const lines = ['Paris', 'Rome'].map((city) => JSON.stringify({ messages: [{ role: 'user', content: PROMPT }, { role: 'assistant', content: city }] }));
  const upload = await platform.rest('POST', `/registry/v1/artifacts/${P}/sft-data`, {
    files: [{ path: 'train.jsonl', content_base64: Buffer.from(`${lines.join('\n')}\n`).toString('base64') }],
  });
  expect(upload.status).toBe(200);
  const submitted = await platform.rest('POST', '/training/v1/preview/sft-training-jobs', {
    model_id: created.body.id,
    training_data_url: `wandb-artifact:///${P}/sft-data:v0`,
    config: { batch_size: 2, learning_rate: 0.05 },
  });
  expect(submitted.status).toBe(200);
  const status = await eventually(async () => {
    const read = await platform.rest('GET', `/training/v1/preview/training-jobs/${submitted.body.id}`);
    return ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(read.body.status) ? read.body.status : undefined;
  }, 120_000);
  expect(status).toBe('SUCCEEDED');
  const checkpoints = await ok(platform, `query($id: ID!) { trainingModel(id: $id) { checkpoints(order: DESC, first: 1) { nodes { step } } } }`, { id: created.body.id });
  step = checkpoints.trainingModel.checkpoints.nodes[0].step;
}, 180_000);

afterAll(async () => {
  await platform?.close();
});

const EVALUATE = `mutation($input: DatasetEvaluationInput!) { evaluateDataset(entity: "${ENTITY}", project: "${PROJECT}", input: $input) { runs { id model } } }`;
const SUMMARY = `query($id: String!) { project(entity: "${ENTITY}", name: "${PROJECT}") { evaluationRunSummary(id: $id) { status exception exampleCount } } }`;
/** The checkpoint beside the base model (an evaluation compares at least two models). */
const evaluate = (model: string) =>
  platform.graphql(EVALUATE, { input: { dataset: 'capitals', models: [model, 'trellis-tiny'], promptColumn: 'question', maxTokens: 4, scorers: [{ name: 'exact', scorer: { kind: 'EQUALS' } }] } });

describe('evaluateDataset with a checkpoint training serves but the registry has not recorded yet', () => {
  it('is accepted and answered by the checkpoint', async () => {
    const ref = `wandb-artifact:///${P}/${MODEL}:step${step}`;
    // The race's state: the registry has no version of the model, training chat serves the step.
    const inRegistry = await platform.graphql(`{ artifactVersionByName(entity: "${ENTITY}", project: "${PROJECT}", collection: "${MODEL}", version: "latest") { id } }`);
    expect(inRegistry.body.data?.artifactVersionByName ?? null).toBeNull();
    const served = await ok(platform, `query($model: String!) { trainingServedModel(model: $model) { baseModel checkpointStep } }`, { model: ref });
    expect(served.trainingServedModel).toEqual({ baseModel: 'trellis-tiny', checkpointStep: step });

    const started = await evaluate(ref);
    expect(started.body.errors).toBeUndefined();
    const [run] = started.body.data.evaluateDataset.runs;
    expect(run.model).toBe(ref);
    // Answered by training chat from the checkpoint, recorded as one example.
    const summary = await eventually(async () => {
      const read = (await ok(platform, SUMMARY, { id: run.id })).project.evaluationRunSummary;
      return read.status === 'RUNNING' ? undefined : read;
    }, 60_000);
    expect(summary).toEqual({ status: 'SUCCESS', exception: null, exampleCount: 1 });
  });

  it('still refuses a step training does not have, at its path, starting nothing', async () => {
    const missing = await evaluate(`wandb-artifact:///${P}/${MODEL}:step${step + 100}`);
    expect(missing.body.data).toBeNull();
    expect(missing.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(missing.body.errors[0].extensions.issues).toEqual([
      expect.objectContaining({ loc: ['input', 'models', 0], msg: expect.stringContaining(`has no checkpoint at step ${step + 100}`) }),
    ]);
    const count = await ok(platform, `{ project(entity: "${ENTITY}", name: "${PROJECT}") { evaluationRunCount } }`);
    expect(count.project.evaluationRunCount).toBe(2);
  });
});
