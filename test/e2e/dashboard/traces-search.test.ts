import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The traces list as a Weave or Langfuse user works in it: tokens, cost, input/output previews, feedback and usernames
 * per row; full-text search over inputs and outputs; date, attribute and feedback filters; page size; a remembered
 * column chooser; export of the filtered calls as JSON lines and CSV.
 */
const PROJECT = 'trellis/dash-search';
const BULK = 30;
let harness: DashboardHarness;
let adminUsername: string;
const base = Date.now() - 6 * 3_600_000;
const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
/** The datetime-local form of a minute offset (the browser runs in UTC). */
const local = (minutes: number) => at(minutes).slice(0, 19);

beforeAll(async () => {
  harness = await startDashboardHarness();
  const batch: unknown[] = [];
  const call = (id: string, minute: number, start: Record<string, unknown>, end: Record<string, unknown>) => {
    batch.push({ mode: 'start', req: { start: { project_id: PROJECT, id, op_name: `weave:///${PROJECT}/op/${start.op ?? 'answer'}:Hx8cR2kq`, started_at: at(minute), attributes: start.attributes ?? {}, inputs: start.inputs ?? {} } } });
    batch.push({ mode: 'end', req: { end: { project_id: PROJECT, id, ended_at: at(minute + 0.02), summary: {}, ...end } } });
  };
  // One chat completion with usage, in production; then 30 plain calls, every third in production.
  call(
    'chat-call',
    200,
    { op: 'chat', attributes: { env: 'prod' }, inputs: { messages: [{ role: 'user', content: 'What lights the sky over Reykjavik?' }], model: 'gpt-4o-mini' } },
    {
      output: { choices: [{ message: { role: 'assistant', content: 'The aurora borealis, on clear winter nights.' } }] },
      summary: { usage: { 'gpt-4o-mini': { prompt_tokens: 1000, completion_tokens: 500, requests: 1 } } },
    },
  );
  for (let i = 0; i < BULK; i++) {
    // Every fifth mentions the aurora too, and each reports a few tokens of gpt-4o-mini.
    call(
      `bulk-${String(i).padStart(2, '0')}`,
      i * 5,
      { op: 'answer', attributes: { env: i % 3 === 0 ? 'prod' : 'dev' }, inputs: { question: `question ${i}` } },
      { output: `answer number ${i}${i % 5 === 0 ? ', seen with the aurora' : ''}`, summary: { usage: { 'gpt-4o-mini': { prompt_tokens: 100 + i, completion_tokens: 40 } } } },
    );
  }
  await harness.postJson('/traces/call/upsert_batch', { batch });
  await harness.postJson('/traces/feedback/create', { project_id: PROJECT, weave_ref: `weave:///${PROJECT}/call/chat-call`, feedback_type: 'wandb.reaction.1', payload: { emoji: '👍' } });
  await harness.postJson('/traces/feedback/create', {
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/bulk-03`,
    feedback_type: 'wandb.runnable.Correctness',
    payload: { output: { correct: true } },
  });
  adminUsername = (await harness.platform.graphql('{ viewer { username } }')).body.data.viewer.username;
  await harness.signIn();
});
afterAll(() => harness?.close());

const table = () => harness.page.getByRole('table', { name: `Calls of ${PROJECT}` });
const rows = () => table().locator('tbody tr');
const openList = (query = '') => harness.open(`/traces?project=${encodeURIComponent(PROJECT)}${query}`);

describe('dashboard: Traces list, search and export', () => {
  it('finds a word from an output; rows show tokens, cost, previews, feedback and the username', async () => {
    const { page } = harness;
    await openList();
    await page.getByText(`${BULK + 1} traces match`).waitFor();
    for (const header of ['Op name', 'Status', 'Input', 'Output', 'Tokens', 'Cost', 'Feedback', 'Latency', 'Started at', 'User / run']) {
      await table().getByRole('columnheader', { name: new RegExp(`^${header}`) }).waitFor();
    }

    // A word in several outputs: the list the README shows.
    await page.getByLabel('Search inputs and outputs').fill('aurora');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText(`${1 + BULK / 5} traces match`).waitFor();
    await expect.poll(() => rows().count()).toBe(1 + BULK / 5);
    await harness.checkAccessibility('traces list with a search');
    await harness.screenshot('traces');

    await page.getByLabel('Search inputs and outputs').fill('borealis');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('1 trace matches').waitFor();
    expect(page.url()).toContain('q=borealis');
    const row = rows().first();
    // Short op name (not the weave:/// ref), one-line previews from the server, usage and its cost at gpt-4o-mini's
    // list price (1,000 × $0.15 + 500 × $0.60 per million), the reaction, and the admin's username instead of an id.
    await expect.poll(() => row.textContent()).toContain('The aurora borealis, on clear winter nights.');
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).toBe('chat');
    expect(cells[3]).toBe('What lights the sky over Reykjavik?');
    expect(cells[5]).toBe('1,500');
    expect(cells[6]).toBe('$0.00045');
    expect(cells[7]).toContain('👍 1');
    expect(cells[10]).toBe(adminUsername);
    expect(await row.textContent()).not.toContain('weave:///');

    // Words from the middle of an output, and nothing for a word no call has.
    await page.getByLabel('Search inputs and outputs').fill('number 17');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('1 trace matches').waitFor();
    await expect.poll(() => rows().first().textContent()).toContain('answer number 17');
    await page.getByLabel('Search inputs and outputs').fill('zanzibar');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('0 traces match').waitFor();
    await page.getByText('No calls match these filters.').waitFor();
    expect(harness.problems).toEqual([]);
  });

  it('narrows the list by start window, attribute and feedback', async () => {
    const { page } = harness;
    await openList();
    await page.getByText(`${BULK + 1} traces match`).waitFor();
    // Started in [25 min, 50 min): bulk 5 to 9.
    await page.getByLabel('Started from').fill(local(25));
    await page.getByLabel('Started before').fill(local(50));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('5 traces match').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText(`${BULK + 1} traces match`).waitFor();

    // env = prod: the chat call and every third bulk call.
    await page.getByLabel('Attribute', { exact: true }).fill('env');
    await page.getByLabel('Attribute value').fill('prod');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText(`${1 + BULK / 3} traces match`).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();

    await page.getByLabel('Reaction').selectOption('👍');
    await page.getByText('1 trace matches').waitFor();
    await expect.poll(() => rows().first().textContent()).toContain('chat');
    await page.getByLabel('Reaction').selectOption('');
    await page.getByLabel('Scored by').fill('Correctness');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('1 trace matches').waitFor();
    await expect.poll(() => rows().first().textContent()).toContain('Correctness ✓');
    expect(harness.problems).toEqual([]);
  });

  it('changes the page size, and remembers the column chooser across visits', async () => {
    const { page } = harness;
    await openList();
    await expect.poll(() => rows().count()).toBe(25);
    await page.getByLabel('Rows per page').selectOption('50');
    await expect.poll(() => rows().count()).toBe(BULK + 1);
    expect(page.url()).toContain('size=50');

    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('checkbox', { name: 'Input' }).uncheck();
    await page.getByRole('checkbox', { name: 'Trace id' }).check();
    await expect.poll(() => table().getByRole('columnheader', { name: 'Input' }).count()).toBe(0);
    await table().getByRole('columnheader', { name: 'Trace id' }).waitFor();
    await harness.checkAccessibility('traces list with the column chooser open');

    await openList();
    await table().getByRole('columnheader', { name: 'Trace id' }).waitFor();
    expect(await table().getByRole('columnheader', { name: 'Input' }).count()).toBe(0);
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('checkbox', { name: 'Input' }).check();
    await page.getByRole('checkbox', { name: 'Trace id' }).uncheck();
    await table().getByRole('columnheader', { name: 'Input' }).waitFor();
  });

  it('exports the filtered calls as JSON lines and CSV, with the key in a header and never in the URL', async () => {
    const { page } = harness;
    await openList('&attr=env&attrValue=prod&sort=started_at%3AASC');
    await page.getByText(`${1 + BULK / 3} traces match`).waitFor();
    const expected = [...Array.from({ length: BULK / 3 }, (_, k) => `bulk-${String(k * 3).padStart(2, '0')}`), 'chat-call'];

    const [request, jsonl] = await Promise.all([
      page.waitForRequest((candidate) => candidate.url().includes('/traces/calls/export')),
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSONL' }).click(),
    ]);
    expect(new URL(request.url()).search).toBe('');
    expect(request.headers().authorization).toBe(`Bearer ${harness.platform.adminKey}`);
    expect(jsonl.suggestedFilename()).toBe('trellis-dash-search-calls.jsonl');
    const calls = (await readFile((await jsonl.path())!, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    expect(calls.map((call) => call.id)).toEqual(expected);
    expect(calls.at(-1)).toMatchObject({ project_id: PROJECT, attributes: { env: 'prod' }, output: { choices: [{ message: { content: 'The aurora borealis, on clear winter nights.' } }] } });

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(csv.suggestedFilename()).toBe('trellis-dash-search-calls.csv');
    const lines = (await readFile((await csv.path())!, 'utf8')).split('\r\n');
    expect(lines[0]).toBe('id,trace_id,parent_id,op_name,display_name,status,started_at,ended_at,latency_ms,exception,wb_user_id,wb_run_id,attributes,inputs,output,summary');
    expect(lines.slice(1, -1).map((line) => line.split(',')[0])).toEqual(expected);
    expect(lines[1]).toContain(',"answer number 0, seen with the aurora",');
    expect(lines.at(-1)).toBe('');
    expect(harness.problems).toEqual([]);
  });
});
