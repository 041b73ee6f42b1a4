import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

const run = promisify(execFile);
const SDK_SCRIPT = path.join(import.meta.dirname, 'publish-weave-objects.mjs');
const P = 'trellis/objects';

let harness: DashboardHarness;
/** The refs the weave SDK answered for what it published, in order. */
let refs: string[];

beforeAll(async () => {
  harness = await startDashboardHarness();
  const { stdout } = await run(process.execPath, [SDK_SCRIPT, P], {
    env: {
      PATH: process.env.PATH,
      HOME: '/tmp/trellis-weave-dashboard-objects-home',
      WF_TRACE_SERVER_URL: `${harness.platform.url}/traces`,
      WANDB_BASE_URL: harness.platform.url,
      WANDB_API_KEY: harness.platform.adminKey,
    },
    timeout: 60_000,
  });
  refs = JSON.parse(stdout.trim().split('\n').at(-1)!).refs;
  expect(refs).toHaveLength(5);
}, 120_000);
afterAll(() => harness?.close());

const digestOf = (ref: string) => ref.split(':').at(-1)!;

describe('dashboard: Datasets and Prompts', () => {
  it('lists the datasets the weave SDK published, with their versions and the rows of each', async () => {
    const { page } = harness;
    await harness.signIn();
    await page.getByRole('link', { name: 'Datasets' }).click();
    await page.getByLabel('Project').selectOption(P);
    const list = page.getByRole('table', { name: 'Published datasets, newest first' });
    const capitals = list.getByRole('row').filter({ hasText: 'capitals' });
    await capitals.waitFor();
    expect(await capitals.textContent()).toMatch(/capitals\s*Dataset\s*2/); // name, class, two versions
    expect(await list.getByRole('row').filter({ hasText: 'greeting' }).count()).toBe(0); // prompts are not datasets

    await list.getByRole('button', { name: 'Show dataset capitals' }).click();
    const detail = page.getByTestId('dataset-detail');
    const versions = detail.getByTestId('weave-object-versions');
    await versions.waitFor();
    expect((await versions.locator('tbody th').allTextContents()).map((text) => text.trim())).toEqual(['v1latest', 'v0']);
    expect(await versions.getByRole('link').first().textContent()).toBe(digestOf(refs[1]!).slice(0, 12));

    // The latest version's rows: four, in order, one column per key.
    const rows = detail.getByTestId('dataset-rows');
    await expect.poll(() => rows.locator('tbody tr').count()).toBe(4);
    expect(await rows.getByRole('columnheader').allTextContents()).toEqual(expect.arrayContaining(['#', 'question', 'expected']));
    const kenya = await rows.locator('tbody tr').nth(3).textContent();
    expect(kenya).toMatch(/^3/);
    expect(kenya).toContain('Capital of Kenya?');
    expect(kenya).toContain('Nairobi');
    await harness.checkAccessibility('datasets');
    await page.emulateMedia({ colorScheme: 'dark' });
    await harness.checkAccessibility('datasets in dark mode');
    await page.emulateMedia({ colorScheme: 'light' });
    await harness.screenshot('datasets');

    // The first version has the first three.
    await versions.getByRole('button', { name: 'Show v0' }).click();
    await expect.poll(() => rows.locator('tbody tr').count()).toBe(3);
    expect(new URL(page.url()).searchParams.get('version')).toBe(digestOf(refs[0]!));
    expect(await detail.getByRole('heading', { name: 'Rows of v0' }).count()).toBe(1);
  });

  it('lists the prompts the weave SDK published, with their versions, a string prompt\'s text and a messages prompt\'s messages', async () => {
    const { page } = harness;
    await page.getByRole('link', { name: 'Prompts' }).click();
    await page.getByLabel('Project').selectOption(P);
    const list = page.getByRole('table', { name: 'Published prompts, newest first' });
    await list.getByRole('row').filter({ hasText: 'support-chat' }).waitFor();
    expect(await list.getByRole('row').filter({ hasText: 'greeting' }).textContent()).toMatch(/greeting\s*Prompt\s*2/);
    expect(await list.getByRole('row').filter({ hasText: 'capitals' }).count()).toBe(0);

    await list.getByRole('button', { name: 'Show prompt greeting' }).click();
    const detail = page.getByTestId('prompt-detail');
    await expect.poll(() => detail.getByTestId('prompt-text').textContent()).toBe('Hello {name}, welcome to {place}.');
    const versions = detail.getByTestId('weave-object-versions');
    expect(await versions.locator('tbody tr').nth(1).textContent()).toMatch(/v0.*Hello \{name\}!/);
    await versions.getByRole('button', { name: 'Show v0' }).click();
    await expect.poll(() => detail.getByTestId('prompt-text').textContent()).toBe('Hello {name}!');

    await list.getByRole('button', { name: 'Show prompt support-chat' }).click();
    const messages = page.getByTestId('prompt-messages');
    await expect.poll(() => messages.locator('li').count()).toBe(2);
    expect(await messages.locator('li').nth(0).textContent()).toMatch(/^system.*You are a support agent for \{product\}/);
    expect(await messages.locator('li').nth(1).textContent()).toBe('user{question}');
    expect(await page.getByTestId('prompt-detail').getByRole('heading', { level: 3 }).nth(1).textContent()).toMatch(/v0 \(MessagesPrompt\)/);
    await harness.checkAccessibility('prompts');
    await page.emulateMedia({ colorScheme: 'dark' });
    await harness.checkAccessibility('prompts in dark mode');
    await page.emulateMedia({ colorScheme: 'light' });
    await harness.screenshot('prompts');
  });

  it('shows the empty states for a project without datasets or prompts', async () => {
    const { page } = harness;
    await harness.open(`/datasets?project=${encodeURIComponent('trellis/default')}`);
    await page.getByText('No datasets in this project yet.').waitFor();
    await harness.open(`/prompts?project=${encodeURIComponent('trellis/default')}`);
    await page.getByText('No prompts in this project yet.').waitFor();
    expect(harness.problems).toEqual([]);
  });
});
