import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The Datasets page's fine-tune → promote flow in Chromium against a real platform (with its workers, so the SFT job
 * runs): a dataset built from traced calls, one row's expected answer corrected (saved and shown as v1), "Fine-tune"
 * starts a job from the shown version, the page follows it to SUCCEEDED, "Promote step N to production" promotes its
 * checkpoint, and the OpenAI SDK is then answered under `trellis/finetune/<model>:production`. axe clean, light and
 * dark.
 */
const P = 'trellis/finetune';
let harness: DashboardHarness;

beforeAll(async () => {
  harness = await startDashboardHarness({ workers: true });
  const batch = ['Paris', 'Rome', 'Oslo', 'Lima'].flatMap((city, index) => {
    const id = `ft-${index}`;
    const startedAt = `2026-03-01T00:00:0${index}.000Z`;
    return [
      { mode: 'start', req: { start: { project_id: P, id, op_name: 'chat', started_at: startedAt, attributes: {}, inputs: { messages: [{ role: 'user', content: 'Name a capital.' }] } } } },
      { mode: 'end', req: { end: { project_id: P, id, ended_at: startedAt, summary: {}, output: { role: 'assistant', content: city } } } },
    ];
  });
  await harness.postJson('/traces/call/upsert_batch', { batch });
  const { body } = await harness.platform.graphql(`mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version } }`, {
    input: { projectId: P, dataset: 'capitals', search: { text: 'capital' }, columns: [{ name: 'question', source: 'inputs.messages' }, { name: 'expected', source: 'output.content' }] },
  });
  expect(body.errors).toBeUndefined();
}, 120_000);
afterAll(() => harness?.close());

describe('dashboard: fine-tune and promote from a dataset', () => {
  it('starts an SFT job from the shown version, follows it and promotes its checkpoint, which inference then serves', async () => {
    const { page } = harness;
    await harness.signIn();
    await harness.open(`/datasets?project=${encodeURIComponent(P)}`);
    const list = page.getByRole('table', { name: 'Published datasets, newest first' });
    await list.getByRole('button', { name: 'Show dataset capitals' }).click();
    // Correct row 1's expected answer: saved as v1, which the page then shows.
    const correct = page.getByRole('form', { name: 'Correct a row of capitals v0' });
    await correct.getByLabel('Row #').fill('1');
    await correct.getByLabel('New value').fill('Roma');
    await correct.getByRole('button', { name: 'Save as a new version' }).click();
    const detail = page.getByTestId('dataset-detail');
    await detail.getByRole('heading', { name: 'Rows of v1' }).waitFor();
    await expect.poll(() => detail.getByTestId('dataset-rows').locator('tbody tr').nth(1).textContent()).toContain('Roma');
    expect(await detail.getByTestId('weave-object-versions').locator('tbody tr').count()).toBe(2);
    const form = page.getByRole('form', { name: 'Fine-tune on capitals v1' });
    await form.waitFor();
    await form.getByLabel('Model name').fill('capitals-ui');
    await form.getByRole('button', { name: 'Fine-tune' }).click();

    const job = page.getByTestId('fine-tune-job');
    await expect.poll(() => job.getByRole('status').textContent(), { timeout: 90_000, interval: 500 }).toMatch(/capitals-ui: SUCCEEDED/);
    const promote = job.getByRole('button', { name: /^Promote step \d+ to production$/ });
    await promote.waitFor();
    await harness.checkAccessibility('dataset fine-tune');
    await promote.click();
    await expect.poll(() => job.getByTestId('serving').textContent()).toBe(`Serving as ${P}/capitals-ui:production`);
    await harness.checkAccessibility('dataset fine-tune promoted');
    await page.emulateMedia({ colorScheme: 'dark' });
    await harness.checkAccessibility('dataset fine-tune promoted in dark mode');
    await page.emulateMedia({ colorScheme: 'light' });
    await job.scrollIntoViewIfNeeded();
    await harness.screenshot('dataset-fine-tune');
    expect(harness.problems).toEqual([]);

    // No change on the client's side: the promoted checkpoint answers the model name (once the registry moved its alias).
    const openai = new OpenAI({ apiKey: harness.platform.adminKey, baseURL: `${harness.platform.url}/inference/v1`, maxRetries: 0 });
    await expect
      .poll(
        async () =>
          openai.chat.completions
            .create({ model: `${P}/capitals-ui:production`, messages: [{ role: 'user', content: 'Name a capital.' }], max_tokens: 3, temperature: 0 })
            .then((completion) => completion.object, (error: { status?: number }) => error.status),
        { timeout: 20_000, interval: 250 },
      )
      .toBe('chat.completion');
  }, 180_000);
});
