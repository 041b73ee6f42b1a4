import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_IN_WORDS_TASK, sampleExamples, type TaskExample } from '../../../model-runtime/synthetic-corpus.js';
import { eventually } from '../../../subgraphs/automations/test/helpers.js';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The Datasets page's Evaluate form in Chromium against a real platform (with its workers, so a fine-tune runs), on
 * the improvement loop of issue #31 (README "From traces to a better model"): traced calls of the count-in-words task
 * ('How many letters are in "kamo"? Answer in words.' → "four", which trellis-tiny answers with noise) become a dataset
 * — v0 the training rows, v1 appending held-out rows of other words — and trellis-tiny is fine-tuned on v0 with the
 * settings the improvement-loop test measured a real gain with (48 rows, 60 steps at 1e-2, batch 8). A pattern RE2
 * refuses is answered at its field and starts nothing; then v1's held-out rows are evaluated against trellis-tiny and
 * the fine-tuned model's newest checkpoint with the exact-match check, the page follows both runs to SUCCESS with
 * their means — the checkpoint's higher by a margin — and its link opens the Evaluations page comparing them, where
 * an example shows the base model wrong and the checkpoint right. axe clean, light and dark.
 */
const P = 'trellis/evaluate';
const DATASET = 'letter-counts';
const TRAINING_ROWS = 48;
const HELD_OUT_ROWS = 16;
/** What the held-out evaluation must show at least: the checkpoint's exact-match mean minus the base model's. */
const REQUIRED_GAIN = 0.3;
// The corpus keeps training and held-out words apart by their key's hash, so no held-out word is trained on.
const TRAINING = distinctExamples(TRAINING_ROWS, 11, 'train');
const HELD_OUT = distinctExamples(HELD_OUT_ROWS, 12, 'heldout');
let harness: DashboardHarness;

async function graphql(query: string, variables: Record<string, unknown> = {}) {
  const { body } = await harness.platform.graphql(query, variables);
  expect(body.errors).toBeUndefined();
  return body.data;
}

const runCount = async () => (await graphql(`{ project(entity: "trellis", name: "evaluate") { evaluationRunCount } }`)).project.evaluationRunCount as number;

/**
 * `count` examples of the task with distinct words, from the corpus's seeded sampler: it repeats short words often
 * (most of all in the held-out split), and the comparison would show a repeated row once.
 */
function distinctExamples(count: number, seed: number, split: 'train' | 'heldout'): TaskExample[] {
  const byKey = new Map(sampleExamples([COUNT_IN_WORDS_TASK], count * 20, seed, split).map((example) => [example.key, example] as const));
  if (byKey.size < count) throw new Error(`the corpus gave ${byKey.size} distinct ${split} words, not ${count}`);
  return [...byKey.values()].slice(0, count);
}

/**
 * Traces each example as a chat call of its question answered with its true answer (the sampler's occasional system
 * prompt left out), and makes those calls a version of the dataset: `input` the question's text (so the comparison
 * shows it as text), `expected` the answer.
 */
async function traceIntoDataset(examples: TaskExample[], idPrefix: string, append: boolean): Promise<{ version: string; rowCount: number }> {
  const ids = examples.map((_, index) => `${idPrefix}-${index}`);
  const batch = examples.flatMap((example, index) => {
    const startedAt = new Date(Date.UTC(2026, 2, 1, 0, 0, index)).toISOString();
    return [
      { mode: 'start', req: { start: { project_id: P, id: ids[index], op_name: 'chat', started_at: startedAt, attributes: {}, inputs: { messages: [{ role: 'user', content: example.messages.at(-1)!.content }] } } } },
      { mode: 'end', req: { end: { project_id: P, id: ids[index], ended_at: startedAt, summary: {}, output: { role: 'assistant', content: example.answer } } } },
    ];
  });
  await harness.postJson('/traces/call/upsert_batch', { batch });
  const data = await graphql(`mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version rowCount } }`, {
    input: { projectId: P, dataset: DATASET, callIds: ids, append, columns: [{ name: 'input', source: 'inputs.messages.0.content' }, { name: 'expected', source: 'output.content' }] },
  });
  return data.createDatasetFromCalls;
}

/** The exact-match mean a row of the form's progress table shows ("exact: 0.63 (16)"). */
function meanOf(rowText: string): number {
  const match = /exact: (\d\.\d\d) \((\d+)\)/.exec(rowText);
  expect(match, rowText).not.toBeNull();
  expect(Number(match![2])).toBe(HELD_OUT_ROWS);
  return Number(match![1]);
}

beforeAll(async () => {
  const started = Date.now();
  harness = await startDashboardHarness({ workers: true });
  expect(await traceIntoDataset(TRAINING, 'train', false)).toEqual({ version: 'v0', rowCount: TRAINING_ROWS });
  expect(await traceIntoDataset(HELD_OUT, 'held-out', true)).toEqual({ version: 'v1', rowCount: TRAINING_ROWS + HELD_OUT_ROWS });
  // trellis-tiny fine-tuned on v0 only (the Fine-tune form's own test drives that through the page).
  const model = await graphql(`mutation { createTrainingModel(input: { entity: "trellis", project: "evaluate", name: "letters-tuned", baseModel: "trellis-tiny" }) { id } }`);
  const job = await graphql(`mutation($input: SftTrainingJobFromDatasetInput!) { createSftTrainingJobFromDataset(input: $input) { id } }`, {
    input: {
      modelId: model.createTrainingModel.id,
      dataset: { project: 'evaluate', dataset: DATASET, version: 'v0', promptColumn: 'input', completionColumn: 'expected' },
      config: { batchSize: 8, learningRate: 0.01, extra: { steps: 60, seed: 1 } },
    },
  });
  const status = await eventually(async () => {
    const read = await graphql(`query($id: ID!) { trainingJob(id: $id) { status } }`, { id: job.createSftTrainingJobFromDataset.id });
    return ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(read.trainingJob.status) ? (read.trainingJob.status as string) : undefined;
  }, 120_000);
  expect(status).toBe('SUCCEEDED');
  console.log(`dataset-evaluate: platform up, dataset traced, fine-tune SUCCEEDED in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 180_000);
afterAll(() => harness?.close());

describe('dashboard: evaluate a dataset version', () => {
  it('refuses a bad scorer at its field, then shows the fine-tuned checkpoint beating the base model on the held-out rows, and compares them', async () => {
    const started = Date.now();
    const { page } = harness;
    await harness.signIn();
    await harness.open(`/datasets?project=${encodeURIComponent(P)}`);
    await page.getByRole('table', { name: 'Published datasets, newest first' }).getByRole('button', { name: `Show dataset ${DATASET}` }).click();
    const form = page.getByRole('form', { name: `Evaluate ${DATASET} v1` });
    await form.waitFor();
    // The prompt column defaults to the version's own (its rows have input and expected).
    await expect.poll(() => form.getByLabel('Prompt column').inputValue()).toBe('input');
    await form.getByLabel('Model 1').selectOption('trellis-tiny');
    // The fine-tuned model is offered by its newest checkpoint.
    const tuned = form.getByLabel('Model 2').locator('option', { hasText: 'letters-tuned' });
    expect(await tuned.textContent()).toBe('letters-tuned — newest checkpoint (step 60)');
    const checkpoint = `wandb-artifact:///${P}/letters-tuned:latest`;
    await form.getByLabel('Model 2').selectOption(checkpoint);

    // A pattern RE2 refuses: the server's message, and no run started.
    await form.getByLabel('Check').selectOption('REGEX');
    await form.getByLabel('Pattern').fill('(a)\\1');
    await form.getByRole('button', { name: 'Evaluate' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/Invalid pattern/);
    expect(await runCount()).toBe(0);
    await harness.forgetProblems();

    // The held-out rows are the last quarter of v1: exactly the rows v1 appended, which the fine-tune never saw.
    await form.getByLabel('Check').selectOption('EQUALS');
    await form.getByLabel('Held-out fraction').fill(String(HELD_OUT_ROWS / (TRAINING_ROWS + HELD_OUT_ROWS)));
    await form.getByRole('button', { name: 'Evaluate' }).click();
    const progress = page.getByTestId('evaluation-progress');
    await expect
      .poll(() => progress.getByRole('status').textContent(), { timeout: 60_000, interval: 500 })
      .toBe(`Evaluated rows ${TRAINING_ROWS}–${TRAINING_ROWS + HELD_OUT_ROWS - 1} of v1 with 2 models.`);
    const runs = progress.getByRole('table', { name: "The evaluation's runs, one per model" });
    expect(await runs.getByRole('row').count()).toBe(3);
    const means = [];
    for (const model of ['trellis-tiny', checkpoint]) {
      const text = (await runs.getByRole('row').filter({ hasText: model }).textContent())!;
      expect(text).toMatch(new RegExp(`SUCCESS.*${HELD_OUT_ROWS} / ${HELD_OUT_ROWS}`));
      means.push(meanOf(text));
    }
    const [baseMean, tunedMean] = means as [number, number];
    console.log(`dataset-evaluate: held-out exact match (${HELD_OUT_ROWS} rows, through the form): trellis-tiny ${baseMean.toFixed(2)} → letters-tuned ${tunedMean.toFixed(2)} (${((Date.now() - started) / 1000).toFixed(1)} s into the browser part)`);
    expect(tunedMean - baseMean).toBeGreaterThanOrEqual(REQUIRED_GAIN);
    expect(await runCount()).toBe(2);
    await harness.checkAccessibility('dataset evaluate');
    await page.emulateMedia({ colorScheme: 'dark' });
    await harness.checkAccessibility('dataset evaluate in dark mode');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('heading', { name: 'Evaluate v1' }).scrollIntoViewIfNeeded();
    await progress.scrollIntoViewIfNeeded();
    await harness.screenshot('dataset-evaluate');

    // The comparison: both runs' means, and the held-out examples side by side.
    await progress.getByRole('link', { name: 'Compare the runs on the Evaluations page' }).click();
    const comparison = page.getByTestId('comparison');
    await comparison.waitFor();
    const examples = comparison.getByTestId('comparison-examples');
    await expect.poll(() => examples.getByRole('row').count(), { timeout: 20_000 }).toBe(1 + HELD_OUT_ROWS);
    const summary = (await comparison.getByTestId('comparison-summary').textContent())!;
    expect(summary).toContain('trellis-tiny');
    expect(summary).toContain('letters-tuned');
    // Only the examples the two runs score differently: the ones the checkpoint answers right and the base model wrong.
    await comparison.getByLabel('Only examples the runs score differently').check();
    const fixed = examples.locator('tbody tr');
    await expect.poll(() => fixed.count()).toBeGreaterThanOrEqual(Math.ceil(REQUIRED_GAIN * HELD_OUT_ROWS));
    const first = fixed.first();
    const expected = /expected: (\w+)/.exec((await first.getByRole('rowheader').textContent())!)![1]!;
    // B's cell strikes through the words of A's answer it lacks (<del>); its own answer is the rest.
    expect((await first.locator('[data-output="B"] > :not(del)').allTextContents()).join('').trim()).toBe(expected);
    expect((await first.locator('[data-output="A"]').textContent())!.trim()).not.toBe(expected);
    await harness.checkAccessibility('evaluations comparing the dataset evaluation');
    await comparison.scrollIntoViewIfNeeded();
    await harness.screenshot('dataset-evaluate-compare');
    expect(harness.problems).toEqual([]);
  }, 180_000);
});
