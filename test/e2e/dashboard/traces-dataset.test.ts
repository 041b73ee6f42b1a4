import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The traces list's "Add to dataset" (createDatasetFromCalls): tick calls, name a dataset, keep the default columns
 * (input ← inputs, output ← output, expected ← output), and the Datasets page shows the version it made; appending
 * makes the next version with the earlier rows first; a refusal is shown at its field and saves nothing.
 */
const PROJECT = 'trellis/dash-dataset';
let harness: DashboardHarness;
const base = Date.now() - 3_600_000;
const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();

beforeAll(async () => {
  harness = await startDashboardHarness();
  const batch: unknown[] = [];
  for (let i = 0; i < 3; i++) {
    const id = `q-${i}`;
    batch.push({ mode: 'start', req: { start: { project_id: PROJECT, id, op_name: `weave:///${PROJECT}/op/answer:Hx8cR2kq`, started_at: at(i), attributes: {}, inputs: { question: `question ${i}` } } } });
    batch.push({ mode: 'end', req: { end: { project_id: PROJECT, id, ended_at: at(i + 0.02), summary: {}, output: `answer ${i}` } } });
  }
  await harness.postJson('/traces/call/upsert_batch', { batch });
  await harness.signIn();
});
afterAll(() => harness?.close());

const openList = () => harness.open(`/traces?project=${encodeURIComponent(PROJECT)}`);
/** Every object version the project holds, by name (the datasets this page made are all there is). */
async function objectVersions(): Promise<string[]> {
  const { body } = await harness.platform.graphql('{ project(entity: "trellis", name: "dash-dataset") { traceObjects(first: 50) { nodes { objectId } } } }');
  expect(body.errors).toBeUndefined();
  return body.data.project.traceObjects.nodes.map((node: { objectId: string }) => node.objectId);
}

/** The rows the Datasets page shows for the version it opened, as text. */
async function datasetRows(): Promise<string[]> {
  const rows = harness.page.getByTestId('dataset-rows').locator('tbody tr');
  await rows.first().waitFor();
  return rows.allTextContents();
}

describe('dashboard: Traces list, add selected calls to a dataset', () => {
  it('adds two selected calls to a new dataset, then appends a third as its next version', async () => {
    const { page } = harness;
    await openList();
    await page.getByText('3 traces match').waitFor();
    const addButton = page.getByRole('button', { name: /^Add to dataset/ });

    await page.getByRole('checkbox', { name: 'Select call answer (q-0)' }).check();
    await page.getByRole('checkbox', { name: 'Select call answer (q-1)' }).check();
    await addButton.click();
    const form = page.getByRole('form', { name: 'Add calls to a dataset' });
    await page.getByRole('heading', { name: 'Add calls to a dataset' }).waitFor();
    // Ticked calls: they are what is added (the list's "roots only" also offers all three traces).
    expect(await form.getByLabel('The 2 selected calls').isChecked()).toBe(true);
    expect(await form.getByLabel('All 3 matching calls').isChecked()).toBe(false);
    expect(await form.getByLabel('Column 3 name').inputValue()).toBe('expected');
    expect(await form.getByLabel('Column 3 source').inputValue()).toBe('output');
    await form.getByLabel('Dataset name').fill('answers');
    await harness.checkAccessibility('traces list with the add-to-dataset form');
    await harness.screenshot('traces-add-to-dataset');
    await form.getByRole('button', { name: 'Save to dataset' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved answers:v0 with 2 rows.' }).waitFor();

    await page.getByRole('link', { name: 'Open answers:v0 in Datasets' }).click();
    await page.getByRole('heading', { name: 'Datasets', level: 1 }).waitFor();
    const v0 = await datasetRows();
    expect(v0).toHaveLength(2);
    expect(v0[0]).toContain('question 0');
    expect(v0[0]).toContain('answer 0');
    expect(v0[1]).toContain('question 1');
    expect(await page.getByTestId('dataset-rows').getByRole('columnheader').allTextContents()).toEqual(expect.arrayContaining(['input', 'output', 'expected']));

    // Append the third call: v1 holds v0's two rows and then it.
    await openList();
    await page.getByText('3 traces match').waitFor();
    await page.getByRole('checkbox', { name: 'Select call answer (q-2)' }).check();
    await page.getByRole('button', { name: 'Add to dataset (1)' }).click();
    await form.getByLabel('Dataset name').fill('answers');
    await form.getByLabel('Append to the latest version').check();
    await form.getByRole('button', { name: 'Save to dataset' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved answers:v1 with 3 rows.' }).waitFor();
    await page.getByRole('link', { name: 'Open answers:v1 in Datasets' }).click();
    await expect.poll(async () => (await datasetRows()).length).toBe(3);
    expect(await objectVersions()).toEqual(['answers', 'answers']);
    const v1 = await datasetRows();
    expect(v1[0]).toContain('question 0');
    expect(v1[2]).toContain('question 2');
    expect(v1[2]).toContain('answer 2');
  });

  it('shows the refusal of an empty dataset name at the name field and saves nothing', async () => {
    const { page } = harness;
    await openList();
    await page.getByText('3 traces match').waitFor();
    await page.getByLabel('Select all on this page').check();
    await page.getByRole('button', { name: 'Add to dataset (3)' }).click();
    const form = page.getByRole('form', { name: 'Add calls to a dataset' });
    await form.getByRole('button', { name: 'Save to dataset' }).click();
    await page.getByTestId('field-error-traces-dataset-name').waitFor();
    expect(await form.getByLabel('Dataset name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(0);
    await harness.checkAccessibility('add-to-dataset refusal');
    // Nothing saved: the project still holds the first test's two versions of answers only.
    expect(await objectVersions()).toEqual(['answers', 'answers']);
  });

  it("adds every call the list's search, op and status filters match, with nothing ticked", async () => {
    const { page } = harness;
    await harness.open(`/traces?project=${encodeURIComponent(PROJECT)}&q=${encodeURIComponent('question 2')}&op=answer&status=success`);
    await page.getByText('1 trace matches').waitFor();
    await page.getByRole('button', { name: 'Add to dataset' }).click();
    const form = page.getByRole('form', { name: 'Add calls to a dataset' });
    expect(await form.getByLabel('The 0 selected calls').isDisabled()).toBe(true);
    expect(await form.getByLabel('The 1 matching call').isChecked()).toBe(true);
    await form.getByLabel('Dataset name').fill('matching');
    await harness.screenshot('traces-add-matching-to-dataset');
    await form.getByRole('button', { name: 'Save to dataset' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved matching:v0 with 1 row.' }).waitFor();
    await page.getByRole('link', { name: 'Open matching:v0 in Datasets' }).click();
    const rows = await datasetRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('question 2');
    expect(rows[0]).toContain('answer 2');
  });
});
