import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { eventually, ok } from '../../automations/test/helpers.js';
import { callerLeftReason } from '../dataset-evaluation/evaluation-runner.js';
import { streamedRows, traces } from './helpers.js';

/**
 * evaluateDataset through the public graph: chat completions traced through inference (OpenAI SDK, OpenAI-Project)
 * become a Weave Dataset (createDatasetFromCalls; the expected answers corrected with editDatasetRow), and the
 * platform evaluates its held-out rows against the embedded trellis-tiny and a second model with a built-in check and
 * an LLM judge; the runs finish and evaluationRunsComparison's per-scorer means are what the rows' answers give.
 * Bad input is BAD_USER_INPUT at its path and creates nothing.
 */
const ENTITY = 'trellis';
const PROJECT = 'evals';
const P = `${ENTITY}/${PROJECT}`;
/** Tasks of trellis-tiny's synthetic corpus (docs/model-card.md), with their true answers. */
const TASKS: [string, string][] = [
  ['How many letters are in "kamo"?', '4'],
  ['Capital of Peru?', 'Lima'],
  ['7 x 8 =', '56'],
  ['Opposite of hot?', 'cold'],
  ['How many letters are in "tree"?', '4'],
  ['Uppercase: kamo', 'KAMO'],
];
let platform: TestPlatform;
let datasetVersion: string;
/** A checkpoint fine-tuned on the dataset, by its training ref and its promoted inference name. */
let checkpointRef: string;
let promotedName: string;

const EVALUATE = `mutation($entity: String!, $project: String!, $input: DatasetEvaluationInput!) {
  evaluateDataset(entity: $entity, project: $project, input: $input) { evaluationRef datasetRef datasetVersion rowStart rowEnd runs { id model } }
}`;
const SUMMARY = `query($id: String!) { project(entity: "${ENTITY}", name: "${PROJECT}") { evaluationRunSummary(id: $id) { id status exception model exampleCount scores { scorer metric mean count } } } }`;
const COMPARE = `query($runs: [String!]!) { project(entity: "${ENTITY}", name: "${PROJECT}") { evaluationRunsComparison(runs: $runs) {
  runs { id model status exampleCount scores { scorer metric mean count } }
  examples { key inputs results { callId output values { scorer metric value } } }
} } }`;
const COUNT = `{ project(entity: "${ENTITY}", name: "${PROJECT}") { evaluationRunCount } }`;

const EXACT = { name: 'exact', scorer: { kind: 'EQUALS' } };
const JUDGE = { name: 'judge', scorer: { kind: 'LLM_JUDGE', prompt: 'Is {{output}} equal to {{inputs.expected}}? Answer 1 for yes, 0 for no:', maxTokens: 4 } };

beforeAll(async () => {
  platform = await startTestPlatform();
  await ok(platform, `mutation { createProject(entity: "${ENTITY}", name: "${PROJECT}") { fullName } }`);
  const openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: P });
  for (const [content] of TASKS) {
    await openai.chat.completions.create({ model: 'trellis-tiny', messages: [{ role: 'user', content }], max_tokens: 4, temperature: 0, seed: 0 });
  }
  // The completions are recorded as calls of the project from their platform events, moments later.
  const calls = await eventually(async () => {
    const listed = await traces(platform, '/calls/stream_query', { project_id: P, sort_by: [{ field: 'started_at', direction: 'asc' }] });
    const rows = streamedRows(listed.body);
    return rows.length === TASKS.length ? rows : undefined;
  }, 30_000);
  const created = await ok(platform, `mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version } }`, {
    input: {
      projectId: P,
      dataset: 'tasks',
      callIds: calls.map((call: { id: string }) => call.id),
      columns: [
        { name: 'input', source: 'inputs.messages' },
        { name: 'expected', source: 'output.content' },
      ],
    },
  });
  expect(created.createDatasetFromCalls.version).toBe('v0');
  // The true answers, as a reviewer corrects them: each row's expected output (one version per edit; the last is v6).
  for (const [index, [, answer]] of TASKS.entries()) {
    const edited = await ok(platform, `mutation($input: DatasetRowEditInput!) { editDatasetRow(input: $input) { version } }`, {
      input: { projectId: P, dataset: 'tasks', rowIndex: index, values: { expected: answer } },
    });
    datasetVersion = edited.editDatasetRow.version;
  }

  // A second model: trellis-tiny fine-tuned on the corrected version, then promoted to production.
  const model = await platform.fetch('/training/v1/preview/models', {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project: PROJECT, name: 'tasks-tuned', base_model: 'trellis-tiny' }),
  });
  const modelId = ((await model.json()) as { id: string }).id;
  const job = await ok(platform, `mutation($input: SftTrainingJobFromDatasetInput!) { createSftTrainingJobFromDataset(input: $input) { id } }`, {
    input: { modelId, dataset: { project: PROJECT, dataset: 'tasks', promptColumn: 'input', completionColumn: 'expected' }, config: { batchSize: 2, learningRate: 0.05 } },
  });
  const jobQuery = `query($id: ID!) { trainingJob(id: $id) { status } }`;
  const status = await eventually(async () => {
    const read = await ok(platform, jobQuery, { id: job.createSftTrainingJobFromDataset.id });
    return ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(read.trainingJob.status) ? read.trainingJob.status : undefined;
  }, 150_000);
  expect(status).toBe('SUCCEEDED');
  checkpointRef = `wandb-artifact:///${P}/tasks-tuned:latest`;
  const checkpoints = await ok(platform, `query($id: ID!) { trainingModel(id: $id) { checkpoints(order: DESC, first: 1) { nodes { step } } } }`, { id: modelId });
  const step = checkpoints.trainingModel.checkpoints.nodes[0].step as number;
  await ok(platform, `mutation($id: ID!) { promoteTrainingCheckpoint(modelId: $id, input: { step: ${step}, alias: "production" }) { aliases } }`, { id: modelId });
  promotedName = `${P}/tasks-tuned:production`;
  // The registry moves the alias from the promotion event, moments later: inference then serves the name.
  await eventually(async () => {
    try {
      await openai.chat.completions.create({ model: promotedName, messages: [{ role: 'user', content: 'Capital of Peru?' }], max_tokens: 2 });
      return true;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }, 20_000);
}, 240_000);
afterAll(async () => {
  await platform?.close();
});

async function evaluate(input: Record<string, unknown>, key?: string) {
  return platform.graphql(EVALUATE, { entity: ENTITY, project: PROJECT, input: { dataset: `tasks:${datasetVersion}`, models: ['trellis-tiny', 'trellis-tiny'], scorers: [EXACT], ...input } }, key);
}

async function finished(id: string) {
  return eventually(async () => {
    const read = await ok(platform, SUMMARY, { id });
    const run = read.project.evaluationRunSummary;
    return run.status === 'RUNNING' ? undefined : run;
  }, 120_000);
}

describe('evaluateDataset', () => {
  it('refuses bad input at its path and creates nothing', async () => {
    const before = (await ok(platform, COUNT)).project.evaluationRunCount;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ dataset: 'nope:v0' }, ['input', 'dataset']],
      [{ dataset: 'tasks:v99' }, ['input', 'dataset']],
      [{ models: ['trellis-tiny'] }, ['input', 'models']],
      [{ models: ['trellis-tiny', 'trellis-tiny', 'trellis-tiny', 'trellis-tiny', 'trellis-tiny'] }, ['input', 'models']],
      [{ models: ['trellis-tiny', 'no-such-model'] }, ['input', 'models', 1]],
      [{ models: ['trellis-tiny', 'wandb-artifact:///trellis/evals/no-such-model:latest'] }, ['input', 'models', 1]],
      [{ split: { startRow: 6 } }, ['input', 'split', 'startRow']],
      [{ split: { heldOutFraction: 0.5, startRow: 1 } }, ['input', 'split', 'heldOutFraction']],
      [{ scorers: [{ name: 'bad', scorer: { kind: 'REGEX', pattern: '(a)\\1' } }] }, ['input', 'scorers', 0, 'scorer', 'pattern']],
      [{ scorers: [{ name: 'judge', scorer: { kind: 'LLM_JUDGE', prompt: 'Rate {{nope}}' } }] }, ['input', 'scorers', 0, 'scorer', 'prompt']],
      [{ promptColumn: 'question' }, ['input', 'promptColumn']],
      [{ scorers: [EXACT, EXACT] }, ['input', 'scorers', 1, 'name']],
      // A scorer is published as an object of its name: the dataset's own name would make it the dataset's next version.
      [{ scorers: [{ name: 'tasks', scorer: { kind: 'EQUALS' } }] }, ['input', 'scorers', 0, 'name']],
      [{ name: 'tasks' }, ['input', 'name']],
    ];
    for (const [input, loc] of cases) {
      const { body } = await evaluate(input);
      expect(body.errors?.[0]?.extensions?.code, JSON.stringify(input)).toBe('BAD_USER_INPUT');
      expect(body.errors[0].extensions.issues.map((issue: { loc: unknown }) => issue.loc), JSON.stringify(input)).toContainEqual(loc);
    }
    expect((await ok(platform, COUNT)).project.evaluationRunCount).toBe(before);
    const latest = await traces(platform, '/obj/read', { project_id: P, object_id: 'tasks', digest: 'latest' });
    expect(latest.body.obj.val._class_name).toBe('Dataset');
  });

  it('runs one evaluation run per model over the held-out rows; the comparison shows the means the answers give', async () => {
    const models = ['trellis-tiny', checkpointRef, promotedName];
    const { body } = await evaluate({ models, split: { heldOutFraction: 0.5 }, scorers: [EXACT, JUDGE], maxTokens: 4 });
    expect(body.errors).toBeUndefined();
    const started = body.data.evaluateDataset;
    expect(started).toMatchObject({ datasetVersion, rowStart: 3, rowEnd: 6 });
    expect(started.evaluationRef).toMatch(/^weave:\/\/\/trellis\/evals\/object\/tasks-evaluation:/);
    expect(started.runs.map((run: { model: string }) => run.model)).toEqual(models);
    for (const run of started.runs) expect(await finished(run.id)).toMatchObject({ status: 'SUCCESS', exception: null, exampleCount: 3 });

    const compared = (await ok(platform, COMPARE, { runs: started.runs.map((run: { id: string }) => run.id) })).project.evaluationRunsComparison;
    // The held-out rows are the last half of the version, each prompted with its traced messages.
    expect(compared.examples.map((example: { inputs: { expected: string } }) => example.inputs.expected)).toEqual(['cold', '4', 'KAMO']);
    expect(compared.runs.map((run: { model: string }) => run.model)).toEqual(models);
    const outputs = compared.runs.map((_: unknown, index: number) => compared.examples.map((example: any) => example.results[index].output));
    // The promoted name serves the checkpoint that :latest names: the same answers at temperature 0 and one seed.
    expect(outputs[2]).toEqual(outputs[1]);
    for (const [index, run] of compared.runs.entries()) {
      const answers = compared.examples.map((example: any) => example.results[index]);
      const exact = answers.map((result: any, row: number) => (String(result.output).trim() === compared.examples[row].inputs.expected ? 1 : 0));
      const mean = exact.reduce((sum: number, value: number) => sum + value, 0) / exact.length;
      expect(run.scores.find((score: { scorer: string }) => score.scorer === 'exact')).toMatchObject({ metric: 'score', count: 3, mean });
      const judged = answers.flatMap((result: any) => result.values.filter((value: { scorer: string }) => value.scorer === 'judge').map((value: { value: number }) => value.value));
      const judge = run.scores.find((score: { scorer: string }) => score.scorer === 'judge');
      if (judged.length > 0) expect(judge).toMatchObject({ count: judged.length, mean: judged.reduce((sum: number, value: number) => sum + value, 0) / judged.length });
      for (const value of judged) expect(value >= 0 && value <= 1).toBe(true);
    }
    // The checkpoint is another model: it answers otherwise than trellis-tiny.
    expect(outputs[1]).not.toEqual(outputs[0]);
  }, 180_000);

  it('records a row the model cannot answer as a failed example; the run goes on and succeeds', async () => {
    // Row 5's prompt is longer than trellis-tiny's context (512 tokens): the completion is refused.
    const edited = await ok(platform, `mutation($input: DatasetRowEditInput!) { editDatasetRow(input: $input) { version } }`, {
      input: { projectId: P, dataset: 'tasks', rowIndex: 5, values: { input: 'word '.repeat(400) } },
    });
    const { body } = await evaluate({ dataset: `tasks:${edited.editDatasetRow.version}`, split: { startRow: 4 }, scorers: [EXACT], maxTokens: 4 });
    expect(body.errors).toBeUndefined();
    const [first] = body.data.evaluateDataset.runs;
    expect(await finished(first.id)).toMatchObject({ status: 'SUCCESS', exampleCount: 2, scores: [{ scorer: 'exact', count: 1 }] });
    const compared = (await ok(platform, COMPARE, { runs: body.data.evaluateDataset.runs.map((run: { id: string }) => run.id) })).project.evaluationRunsComparison;
    const failed = compared.examples[1].results[0];
    expect(failed).toMatchObject({ output: null, values: [] });
    const read = await traces(platform, '/call/read', { project_id: P, id: failed.callId });
    expect(read.body.call.exception).toMatch(/^The model did not answer: /);
    const run = await traces(platform, '/call/read', { project_id: P, id: first.id });
    expect(run.body.call.output).toMatchObject({ examples: 2, failed_predictions: 1, failed_scores: 0 });
  }, 120_000);

  it('refuses a caller outside the team, and stops a run once its caller has left the team', async () => {
    const before = (await ok(platform, COUNT)).project.evaluationRunCount;
    const outsider = await platform.createUser('evaluation-outsider');
    const refused = await evaluate({}, outsider.key);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await ok(platform, COUNT)).project.evaluationRunCount).toBe(before);

    // A dataset whose rows make long answers, so the run is still going when its caller leaves.
    const now = new Date().toISOString();
    const ids = Array.from({ length: 40 }, (_, index) => `count-${index}`);
    const batch = ids.flatMap((id, index) => [
      { mode: 'start', req: { start: { project_id: P, id, op_name: 'count', started_at: now, attributes: {}, inputs: { question: `Count from ${index} to ${index + 40}.` } } } },
      { mode: 'end', req: { end: { project_id: P, id, ended_at: now, output: '', summary: {} } } },
    ]);
    expect((await traces(platform, '/call/upsert_batch', { batch })).status).toBe(200);
    await ok(platform, `mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version } }`, {
      input: { projectId: P, dataset: 'counts', callIds: ids, columns: [{ name: 'question', source: 'inputs.question' }, { name: 'expected', source: 'output' }] },
    });
    const member = await platform.createUser('evaluation-member', { [ENTITY]: 'MEMBER' });
    const started = await evaluate({ dataset: 'counts', promptColumn: 'question', maxTokens: 128 }, member.key);
    expect(started.body.errors).toBeUndefined();
    const [run] = started.body.data.evaluateDataset.runs;
    await eventually(async () => {
      const read = (await ok(platform, SUMMARY, { id: run.id })).project.evaluationRunSummary;
      expect(read.status).toBe('RUNNING');
      return read.exampleCount >= 1 ? true : undefined;
    }, 60_000);
    await ok(platform, `mutation { removeTeamMember(username: "evaluation-member", team: "${ENTITY}") }`);
    const ended = await finished(run.id);
    expect(ended).toMatchObject({ status: 'ERROR', exception: callerLeftReason({ principal: { username: 'evaluation-member' } } as never, ENTITY) });
    expect(ended.exampleCount).toBeLessThan(ids.length);
  }, 120_000);
});
