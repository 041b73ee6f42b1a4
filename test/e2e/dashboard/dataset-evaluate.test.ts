import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../subgraphs/automations/test/helpers.js';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The Datasets page's Evaluate form in Chromium against a real platform (with its workers, so a fine-tune runs): a
 * dataset of trellis-tiny's corpus tasks built from traced calls, and a model fine-tuned on it. A pattern RE2 refuses
 * is answered at its field and starts nothing; then the held-out half is evaluated against trellis-tiny and the
 * fine-tuned model's newest checkpoint with the exact-match check, the page follows both runs to SUCCESS with their
 * means, and its link opens the Evaluations page comparing them. axe clean, light and dark.
 */
const P = 'trellis/evaluate';
const TASKS: [string, string][] = [
  ['How many letters are in "kamo"?', '4'],
  ['Capital of Peru?', 'Lima'],
  ['7 x 8 =', '56'],
  ['Opposite of hot?', 'cold'],
  ['How many letters are in "tree"?', '4'],
  ['Uppercase: kamo', 'KAMO'],
];
let harness: DashboardHarness;

async function graphql(query: string, variables: Record<string, unknown> = {}) {
  const { body } = await harness.platform.graphql(query, variables);
  expect(body.errors).toBeUndefined();
  return body.data;
}

const runCount = async () => (await graphql(`{ project(entity: "trellis", name: "evaluate") { evaluationRunCount } }`)).project.evaluationRunCount as number;

beforeAll(async () => {
  harness = await startDashboardHarness({ workers: true });
  const batch = TASKS.flatMap(([question, answer], index) => {
    const id = `task-${index}`;
    const startedAt = `2026-03-01T00:00:0${index}.000Z`;
    return [
      { mode: 'start', req: { start: { project_id: P, id, op_name: 'chat', started_at: startedAt, attributes: {}, inputs: { messages: [{ role: 'user', content: question }] } } } },
      { mode: 'end', req: { end: { project_id: P, id, ended_at: startedAt, summary: {}, output: { role: 'assistant', content: answer } } } },
    ];
  });
  await harness.postJson('/traces/call/upsert_batch', { batch });
  await graphql(`mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version } }`, {
    input: { projectId: P, dataset: 'tasks', callIds: TASKS.map((_, index) => `task-${index}`), columns: [{ name: 'input', source: 'inputs.messages' }, { name: 'expected', source: 'output.content' }] },
  });
  // A model fine-tuned on the dataset (the Fine-tune form's own test drives that through the page).
  const model = await graphql(`mutation { createTrainingModel(input: { entity: "trellis", project: "evaluate", name: "tasks-tuned", baseModel: "trellis-tiny" }) { id } }`);
  const job = await graphql(`mutation($input: SftTrainingJobFromDatasetInput!) { createSftTrainingJobFromDataset(input: $input) { id } }`, {
    input: { modelId: model.createTrainingModel.id, dataset: { project: 'evaluate', dataset: 'tasks', promptColumn: 'input', completionColumn: 'expected' }, config: { batchSize: 2, learningRate: 0.05 } },
  });
  const status = await eventually(async () => {
    const read = await graphql(`query($id: ID!) { trainingJob(id: $id) { status } }`, { id: job.createSftTrainingJobFromDataset.id });
    return ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(read.trainingJob.status) ? (read.trainingJob.status as string) : undefined;
  }, 120_000);
  expect(status).toBe('SUCCEEDED');
}, 180_000);
afterAll(() => harness?.close());

describe('dashboard: evaluate a dataset version', () => {
  it('refuses a bad scorer at its field, then evaluates the held-out rows against two models and links to their comparison', async () => {
    const { page } = harness;
    await harness.signIn();
    await harness.open(`/datasets?project=${encodeURIComponent(P)}`);
    await page.getByRole('table', { name: 'Published datasets, newest first' }).getByRole('button', { name: 'Show dataset tasks' }).click();
    const form = page.getByRole('form', { name: 'Evaluate tasks v0' });
    await form.waitFor();
    // The prompt column defaults to the version's own (its rows have input and expected).
    await expect.poll(() => form.getByLabel('Prompt column').inputValue()).toBe('input');
    await form.getByLabel('Model 1').selectOption('trellis-tiny');
    // The fine-tuned model is offered by its newest checkpoint.
    const tuned = form.getByLabel('Model 2').locator('option', { hasText: 'tasks-tuned' });
    expect(await tuned.textContent()).toMatch(/^tasks-tuned — newest checkpoint \(step \d+\)$/);
    await form.getByLabel('Model 2').selectOption(`wandb-artifact:///${P}/tasks-tuned:latest`);

    // A pattern RE2 refuses: the server's message, and no run started.
    await form.getByLabel('Check').selectOption('REGEX');
    await form.getByLabel('Pattern').fill('(a)\\1');
    await form.getByRole('button', { name: 'Evaluate' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/Invalid pattern/);
    expect(await runCount()).toBe(0);
    await harness.forgetProblems();

    await form.getByLabel('Check').selectOption('EQUALS');
    await form.getByLabel('Held-out fraction').fill('0.5');
    await form.getByRole('button', { name: 'Evaluate' }).click();
    const progress = page.getByTestId('evaluation-progress');
    await expect.poll(() => progress.getByRole('status').textContent(), { timeout: 60_000, interval: 500 }).toBe('Evaluated rows 3–5 of v0 with 2 models.');
    const runs = progress.getByRole('table', { name: "The evaluation's runs, one per model" });
    expect(await runs.getByRole('row').count()).toBe(3);
    for (const model of ['trellis-tiny', `wandb-artifact:///${P}/tasks-tuned:latest`]) {
      const row = runs.getByRole('row').filter({ hasText: model });
      expect(await row.textContent()).toMatch(/SUCCESS.*3 \/ 3.*exact: \d\.\d\d \(3\)/);
    }
    expect(await runCount()).toBe(2);
    await harness.checkAccessibility('dataset evaluate');
    await page.emulateMedia({ colorScheme: 'dark' });
    await harness.checkAccessibility('dataset evaluate in dark mode');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('heading', { name: 'Evaluate v0' }).scrollIntoViewIfNeeded();
    await harness.screenshot('dataset-evaluate');

    await progress.getByRole('link', { name: 'Compare the runs on the Evaluations page' }).click();
    const comparison = page.getByTestId('comparison');
    await comparison.waitFor();
    const examples = comparison.getByTestId('comparison-examples');
    await expect.poll(() => examples.getByRole('row').count(), { timeout: 20_000 }).toBe(1 + 3);
    expect(await examples.textContent()).toContain('Opposite of hot?');
    await harness.checkAccessibility('evaluations comparing the dataset evaluation');
    expect(harness.problems).toEqual([]);
  }, 180_000);
});
