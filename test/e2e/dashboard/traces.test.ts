import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

const run = promisify(execFile);
const WEAVE_SCRIPT = path.resolve(import.meta.dirname, '../weave/run-weave.mjs');
const PROJECT = 'trellis/dash-traces';

let harness: DashboardHarness;
let runningTrace: { id: string; traceId: string };

const post = (path: string, body: unknown) => harness.postJson(path, body);

beforeAll(async () => {
  harness = await startDashboardHarness();
  // A real trace from the published Weave SDK: pipeline → add, explode (which throws).
  await run(process.execPath, [WEAVE_SCRIPT, PROJECT], {
    env: {
      PATH: process.env.PATH,
      HOME: '/tmp/trellis-dashboard-weave-home',
      WF_TRACE_SERVER_URL: `${harness.platform.url}/traces`,
      WANDB_BASE_URL: harness.platform.url,
      WANDB_API_KEY: harness.platform.adminKey,
    },
    timeout: 60_000,
  });
  // 30 more finished traces (more than a page), a minute apart, older than the SDK's.
  const base = Date.now() - 3_600_000;
  const batch = [];
  for (let i = 0; i < 30; i++) {
    const id = `0190bulk-0000-7000-8000-${String(i).padStart(12, '0')}`;
    const started = new Date(base + i * 60_000);
    batch.push({ mode: 'start', req: { start: { project_id: PROJECT, id, op_name: `bulk_op_${i}`, started_at: started.toISOString(), inputs: { i }, attributes: {} } } });
    batch.push({ mode: 'end', req: { end: { project_id: PROJECT, id, ended_at: new Date(started.getTime() + 10 + i * 7).toISOString(), output: i * 2, summary: {} } } });
  }
  await post('/traces/call/upsert_batch', { batch });
  // A trace still running: a root with no end yet.
  runningTrace = (await post('/traces/call/start', {
    start: { project_id: PROJECT, op_name: 'long_running_job', started_at: new Date().toISOString(), inputs: { steps: 3 }, attributes: { env: 'test' } },
  })) as { id: string; traceId: string };
  runningTrace = { id: (runningTrace as any).id, traceId: (runningTrace as any).trace_id };
  await harness.signIn();
});
afterAll(() => harness?.close());

describe('dashboard: Traces', () => {
  it('lists a project\'s traces a page at a time, newest first, and pages with the connection\'s cursors', async () => {
    const { page } = harness;
    await harness.open(`/traces?project=${encodeURIComponent(PROJECT)}`);
    await page.getByText('32 traces match').waitFor();
    const table = page.getByRole('table', { name: `Calls of ${PROJECT}` });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(25);
    // Newest first: the running job, then the SDK's pipeline.
    const first = await table.locator('tbody tr').first().textContent();
    expect(first).toContain('long_running_job');
    expect(first).toContain('running');
    // The page's latency chart: p50 and p95 per minute of the finished calls' starts (24 of the 25: one still runs),
    // each minute with a call a point of both series — not a line through the calls one by one.
    const chart = page.getByTestId('time-series-chart');
    await expect.poll(() => chart.getAttribute('data-series')).toBe('2');
    expect(await chart.getByRole('img').getAttribute('aria-label')).toMatch(/p50 \(ms\).*p95 \(ms\)/);
    await harness.checkAccessibility('traces');
    // docs/screenshots/traces.png is traces-search.test.ts's (the list with a search).

    await page.getByRole('button', { name: 'Next →' }).click();
    await page.getByText('Page 2').waitFor();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(7);
    await expect.poll(() => table.locator('tbody tr').first().textContent()).toContain('bulk_op_6');
    await page.getByRole('button', { name: '← Previous' }).click();
    await page.getByText('Page 1').waitFor();

    // Sorting by latency (server-side): the slowest finished bulk call first, marked for assistive technology.
    await page.getByRole('button', { name: /Latency/ }).click();
    await expect.poll(() => page.getByRole('columnheader', { name: /Latency/ }).getAttribute('aria-sort')).toBe('descending');
    expect(page.url()).toContain('sort=summary.weave.latency_ms%3ADESC');
  });

  it('filters by op name and by status', async () => {
    const { page } = harness;
    await harness.open(`/traces?project=${encodeURIComponent(PROJECT)}`);
    await page.getByLabel('Op name contains').fill('pipeline');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('1 trace matches').waitFor();
    await page.getByRole('link', { name: 'pipeline' }).waitFor();

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Trace roots only').uncheck();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('error');
    await page.getByText('1 call matches').waitFor();
    await page.getByRole('link', { name: 'explode' }).waitFor();
  });

  it('shows a trace as a call tree: the SDK\'s ops nested, each call\'s inputs, output and exception, expand/collapse by keyboard', async () => {
    const { page } = harness;
    await harness.open(`/traces?project=${encodeURIComponent(PROJECT)}&op=pipeline`);
    await page.getByRole('link', { name: 'pipeline' }).click();
    const tree = page.getByRole('tree', { name: 'Call tree' });
    const root = tree.getByRole('treeitem', { name: /^pipeline / });
    await root.waitFor();
    await tree.getByRole('treeitem', { name: /^add / }).waitFor();
    await tree.getByRole('treeitem', { name: /^explode / }).waitFor();
    expect(await root.getAttribute('aria-expanded')).toBe('true');
    // The root is selected: its output is in the detail panel.
    const detail = page.getByTestId('call-detail');
    await expect.poll(() => detail.textContent()).toContain('exploded: on purpose');

    // Keyboard: ← collapses, → expands, ↓ moves to the first child, Enter selects it.
    await root.focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => root.getAttribute('aria-expanded')).toBe('false');
    expect(await tree.getByRole('treeitem', { name: /^add / }).count()).toBe(0);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => root.getAttribute('aria-expanded')).toBe('true');
    await tree.getByRole('treeitem', { name: /^add / }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('call-exception').textContent()).toContain('exploded: on purpose');
    expect(await tree.getByRole('treeitem', { name: /^explode / }).getAttribute('aria-selected')).toBe('true');

    // Collapsible JSON: the inputs of explode hold the reason.
    await expect.poll(() => detail.getByTestId('json-viewer').first().textContent()).toContain('on purpose');
    await harness.checkAccessibility('trace');
    await harness.screenshot('trace');
  });

  it('refreshes a running trace until it ends (no subscription for calls: polling)', async () => {
    const { page } = harness;
    await harness.open(`/traces/${PROJECT}/${runningTrace.traceId}`);
    await page.getByTestId('call-tree').waitFor();
    await page.getByText(/running — refreshing/).waitFor();
    await post('/traces/call/end', { end: { project_id: PROJECT, id: runningTrace.id, ended_at: new Date().toISOString(), output: { done: true }, summary: {} } });
    await page.getByText(/running — refreshing/).waitFor({ state: 'detached', timeout: 8000 });
    await expect.poll(() => page.getByTestId('call-detail').textContent(), { timeout: 8000 }).toContain('done');
    expect(harness.problems).toEqual([]);
  });
});
