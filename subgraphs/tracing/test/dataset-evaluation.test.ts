import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { eventually, ok } from '../../automations/test/helpers.js';
import { traces } from './helpers.js';

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
const PROMPTS = ['1+1=', '2+2=', '3+3=', '4+4=', '5+5=', '6+6='];
let platform: TestPlatform;
let datasetVersion: string;

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
  for (const content of PROMPTS) {
    await openai.chat.completions.create({ model: 'trellis-tiny', messages: [{ role: 'user', content }], max_tokens: 4, temperature: 0, seed: 0 });
  }
  // The completions are recorded as calls of the project from their platform events, moments later.
  const calls = await eventually(async () => {
    const listed = await traces(platform, '/calls/stream_query', { project_id: P, sort_by: [{ field: 'started_at', direction: 'asc' }] });
    const rows = String(listed.body).trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
    return rows.length === PROMPTS.length ? rows : undefined;
  }, 30_000);
  const created = await ok(platform, `mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version } }`, {
    input: {
      projectId: P,
      dataset: 'arith',
      callIds: calls.map((call: { id: string }) => call.id),
      columns: [
        { name: 'input', source: 'inputs' },
        { name: 'expected', source: 'inputs.messages.0.content' },
      ],
    },
  });
  expect(created.createDatasetFromCalls.version).toBe('v0');
  // The true answers, as a reviewer corrects them: each row's expected output (one version per edit; the last is v6).
  let edited = created.createDatasetFromCalls.version;
  for (const [index, prompt] of PROMPTS.entries()) {
    const [a, b] = prompt.slice(0, -1).split('+').map(Number);
    const result = await ok(platform, `mutation($input: DatasetRowEditInput!) { editDatasetRow(input: $input) { version } }`, {
      input: { projectId: P, dataset: 'arith', rowIndex: index, values: { expected: String(a! + b!) } },
    });
    edited = result.editDatasetRow.version;
  }
  datasetVersion = edited;
}, 120_000);
afterAll(async () => {
  await platform?.close();
});

async function evaluate(input: Record<string, unknown>) {
  return platform.graphql(EVALUATE, { entity: ENTITY, project: PROJECT, input: { dataset: `arith:${datasetVersion}`, models: ['trellis-tiny', 'trellis-tiny'], scorers: [EXACT], ...input } });
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
      [{ dataset: 'arith:v99' }, ['input', 'dataset']],
      [{ models: ['trellis-tiny'] }, ['input', 'models']],
      [{ models: ['trellis-tiny', 'trellis-tiny', 'trellis-tiny', 'trellis-tiny', 'trellis-tiny'] }, ['input', 'models']],
      [{ models: ['trellis-tiny', 'no-such-model'] }, ['input', 'models', 1]],
      [{ models: ['trellis-tiny', 'wandb-artifact:///trellis/evals/no-such-model:latest'] }, ['input', 'models', 1]],
      [{ split: { startRow: 6 } }, ['input', 'split', 'startRow']],
      [{ split: { heldOutFraction: 0.5, startRow: 1 } }, ['input', 'split', 'heldOutFraction']],
      [{ scorers: [{ name: 'bad', scorer: { kind: 'REGEX', pattern: '(a)\\1' } }] }, ['input', 'scorers', 0, 'scorer', 'pattern']],
      [{ scorers: [{ name: 'judge', scorer: { kind: 'LLM_JUDGE', prompt: 'Rate {{nope}}' } }] }, ['input', 'scorers', 0, 'scorer', 'prompt']],
      [{ promptColumn: 'question' }, ['input', 'promptColumn']],
    ];
    for (const [input, loc] of cases) {
      const { body } = await evaluate(input);
      expect(body.errors?.[0]?.extensions?.code, JSON.stringify(input)).toBe('BAD_USER_INPUT');
      expect(body.errors[0].extensions.issues.map((issue: { loc: unknown }) => issue.loc), JSON.stringify(input)).toContainEqual(loc);
    }
    expect((await ok(platform, COUNT)).project.evaluationRunCount).toBe(before);
  });

  it('runs one evaluation run per model over the held-out rows; the comparison shows the means the answers give', async () => {
    const { body } = await evaluate({ split: { heldOutFraction: 0.5 }, scorers: [EXACT, JUDGE], maxTokens: 4 });
    expect(body.errors).toBeUndefined();
    const started = body.data.evaluateDataset;
    expect(started).toMatchObject({ datasetVersion, rowStart: 3, rowEnd: 6 });
    expect(started.runs.map((run: { model: string }) => run.model)).toEqual(['trellis-tiny', 'trellis-tiny']);
    for (const run of started.runs) expect(await finished(run.id)).toMatchObject({ status: 'SUCCESS', exception: null, exampleCount: 3 });

    const compared = (await ok(platform, COMPARE, { runs: started.runs.map((run: { id: string }) => run.id) })).project.evaluationRunsComparison;
    // The held-out rows are the last half: 4+4=, 5+5=, 6+6=, each prompted as its traced messages.
    expect(compared.examples.map((example: { inputs: { expected: string } }) => example.inputs.expected)).toEqual(['8', '10', '12']);
    for (const [index, run] of compared.runs.entries()) {
      const answers = compared.examples.map((example: any) => example.results[index]);
      const exact = answers.map((result: any, row: number) => (String(result.output).trim() === compared.examples[row].inputs.expected ? 1 : 0));
      const mean = exact.reduce((sum: number, value: number) => sum + value, 0) / exact.length;
      expect(run.scores.find((score: { scorer: string }) => score.scorer === 'exact')).toMatchObject({ metric: 'score', count: 3, mean });
      const judged = answers.flatMap((result: any) => result.values.filter((value: { scorer: string }) => value.scorer === 'judge').map((value: { value: number }) => value.value));
      const judge = run.scores.find((score: { scorer: string }) => score.scorer === 'judge');
      if (judged.length > 0) expect(judge).toMatchObject({ count: judged.length, mean: judged.reduce((sum: number, value: number) => sum + value, 0) / judged.length });
      for (const value of judged) expect(value === 0 || value === 1).toBe(true);
    }
  }, 180_000);
});
