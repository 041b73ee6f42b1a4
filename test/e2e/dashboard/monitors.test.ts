import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The Monitors page in Chromium against a real platform (with its workers, so monitors score): a monitor's counts
 * and mean score after calls were ingested through the REST API, creating one through the form (and the server's
 * refusal of a bad pattern), pausing it, and a backfill of the last day; axe clean.
 */
let harness: DashboardHarness;
const PROJECT_ID = 'trellis/default';

beforeAll(async () => {
  harness = await startDashboardHarness({ workers: true });
  await harness.signIn();
}, 120_000);
afterAll(() => harness?.close());

async function ingest(calls: { id: string; output: string; expected: string }[]): Promise<void> {
  const now = () => new Date().toISOString();
  await harness.postJson('/traces/call/upsert_batch', {
    batch: calls.flatMap((call) => [
      { mode: 'start', req: { start: { project_id: PROJECT_ID, id: call.id, op_name: 'answer', started_at: now(), attributes: {}, inputs: { expected: call.expected } } } },
      { mode: 'end', req: { end: { project_id: PROJECT_ID, id: call.id, ended_at: now(), output: call.output, summary: {} } } },
    ]),
  });
}

describe('dashboard: Monitors', () => {
  it('lists monitors with their counts, creates, pauses and backfills one', async () => {
    const created = await harness.platform.graphql(
      `mutation { createMonitor(entity: "trellis", project: "default", input: { name: "has-digit", samplingRate: 1, scorer: { kind: REGEX, pattern: "\\\\d" }, threshold: { below: 0.2, windowMinutes: 60, minSamples: 100 } }) { id } }`,
    );
    expect(created.body.errors).toBeUndefined();
    await ingest([
      { id: 'm1', output: 'it is 4', expected: 'it is 4' },
      { id: 'm2', output: 'four', expected: 'it is 4' },
      { id: 'm3', output: '7', expected: '7' },
      { id: 'm4', output: 'seven', expected: 'seven' },
    ]);
    const { page } = harness;
    await harness.open(`/monitors?project=${encodeURIComponent(PROJECT_ID)}`);
    const table = page.getByRole('table', { name: `Monitors of ${PROJECT_ID}` });
    const row = table.getByRole('row', { name: /has-digit/ });
    // Scored in the background: reload until the four calls are counted.
    await expect
      .poll(async () => {
        await page.reload();
        await row.waitFor();
        return row.textContent();
      }, { timeout: 20_000 })
      .toContain('Active');
    await expect.poll(async () => (await page.reload(), await row.waitFor(), await row.textContent()), { timeout: 20_000 }).toMatch(/100%.*Active\s*4 · 0 · 0\s*0\.5/);
    expect(await row.textContent()).toContain('output ~ /\\d/');

    // The server refuses a pattern RE2 cannot compile: its code and message are shown, nothing is created.
    await page.getByLabel('Name').fill('broken');
    await page.getByLabel('Pattern (RE2)').fill('(unclosed');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^BAD_USER_INPUT: .*pattern/i);
    await harness.forgetProblems();
    expect(await table.getByRole('row', { name: /broken/ }).count()).toBe(0);

    // Created through the form: an equality check against inputs.expected.
    await page.getByLabel('Name').fill('correct');
    await page.getByLabel('Scorer').selectOption('EQUALS');
    await page.getByLabel('Other field').fill('inputs.expected');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    const correct = table.getByRole('row', { name: /correct/ });
    await correct.waitFor();
    expect(await correct.textContent()).toContain('output = inputs.expected');

    // The calls ended before it existed: a backfill of the last day scores them (m2 differs from its expected).
    await page.getByRole('button', { name: 'Backfill 24 h: correct' }).click();
    await expect.poll(() => page.getByTestId('backfill-result').textContent()).toContain('4 calls of the last 24 h walked, 4 newly scored, 0 skipped by sampling, 0 failed');
    await expect.poll(() => correct.textContent()).toMatch(/Active\s*4 · 0 · 0\s*0\.75/);

    await page.getByRole('button', { name: 'Pause has-digit' }).click();
    await expect.poll(() => row.textContent()).toContain('Paused');
    await page.getByRole('button', { name: 'Resume has-digit' }).waitFor();

    // Edited: has-digit now wants digits only, on half the calls. The form starts from its settings; what the form
    // does not show (its threshold, paused) stays as it was.
    await page.getByRole('button', { name: 'Edit has-digit' }).click();
    const form = page.getByRole('form', { name: 'Edit monitor has-digit' });
    expect(await form.getByLabel('Pattern (RE2)').inputValue()).toBe('\\d');
    expect(await form.getByLabel('Name').inputValue()).toBe('has-digit');
    await form.getByLabel('Pattern (RE2)').fill('^\\d+$');
    await form.getByLabel('Sampling rate (0–1]').fill('0.5');
    await form.scrollIntoViewIfNeeded();
    await harness.screenshot('monitors-edit');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => row.textContent()).toContain('output ~ /^\\d+$/');
    expect(await row.textContent()).toMatch(/50%\s*Paused/);
    await page.getByRole('heading', { name: 'New monitor' }).waitFor();
    const stored = await harness.platform.graphql(`{ project(entity: "trellis", name: "default") { monitors { name active samplingRate scorer { pattern } threshold { below windowMinutes minSamples } } } }`);
    expect(stored.body.data.project.monitors.find((monitor: { name: string }) => monitor.name === 'has-digit')).toEqual({
      name: 'has-digit',
      active: false,
      samplingRate: 0.5,
      scorer: { pattern: '^\\d+$' },
      threshold: { below: 0.2, windowMinutes: 60, minSamples: 100 },
    });

    // The scores chart: one line per monitor, from their feedback (both scored the four calls within this hour,
    // unless the hour turned meanwhile).
    const chart = page.getByRole('img', { name: /^Mean score per hour, by monitor \(mean score\): / });
    await expect.poll(() => chart.getAttribute('aria-label'), { timeout: 20_000 }).toMatch(/: correct, [12] points; has-digit, [12] points$/);

    await harness.checkAccessibility('monitors');
    // The last click may have scrolled a narrow table sideways: the screenshot shows it from its first column.
    await table.evaluate((element) => element.closest('div')?.scrollTo({ left: 0 }));
    await page.evaluate('window.scrollTo(0, 0)');
    await harness.screenshot('monitors');
    expect(harness.problems.filter((problem) => problem.startsWith('page error'))).toEqual([]);
  }, 120_000);
});
