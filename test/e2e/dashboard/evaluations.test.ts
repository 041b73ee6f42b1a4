import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

const run = promisify(execFile);
const SDK_SCRIPT = path.join(import.meta.dirname, 'run-weave-evaluation.mjs');
const ENTITY = 'trellis';
const PROJECT = 'evals';
const P = `${ENTITY}/${PROJECT}`;

let harness: DashboardHarness;
/** What the weave SDK itself computed for each model (its Evaluation.evaluate summary). */
let summaries: Record<string, { closeness: { mean: number }; exact_match: { correct: { true_fraction: number } } }>;

async function post(pathUnderTraces: string, body: unknown) {
  const response = await harness.platform.fetch(`/traces${pathUnderTraces}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`api:${harness.platform.adminKey}`).toString('base64')}` },
    body: JSON.stringify(body),
  });
  expect(response.status, `${pathUnderTraces}: ${response.status}`).toBe(200);
  return (await response.json()) as Record<string, any>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  harness = await startDashboardHarness();
  // Two evaluations by the real weave SDK (same dataset and scorers, two models)…
  const { stdout } = await run(process.execPath, [SDK_SCRIPT, P, 'geo_v1', 'geo_v2'], {
    env: {
      PATH: process.env.PATH,
      HOME: '/tmp/trellis-weave-dashboard-evals-home',
      WF_TRACE_SERVER_URL: `${harness.platform.url}/traces`,
      WANDB_BASE_URL: harness.platform.url,
      WANDB_API_KEY: harness.platform.adminKey,
    },
    timeout: 60_000,
  });
  summaries = JSON.parse(stdout.trim().split('\n').at(-1)!).summaries;

  // …one through the v2 evaluation API (its scores also become feedback of scorer Helpfulness)…
  const evaluationRun = await post(`/v2/${P}/evaluation_runs`, { evaluation: `weave:///${P}/object/support-eval:e1`, model: 'support-bot' });
  for (const [question, helpful] of [['Reset my password', 0.9], ['Cancel my order', 0.4]] as const) {
    const prediction = await post(`/v2/${P}/predictions`, { model: 'support-bot', inputs: { question }, output: `Sure: ${question}`, evaluation_run_id: evaluationRun.evaluation_run_id });
    await post(`/v2/${P}/scores`, { prediction_id: prediction.prediction_id, scorer: `weave:///${P}/object/Helpfulness:s1`, value: helpful, evaluation_run_id: evaluationRun.evaluation_run_id });
  }
  await post(`/v2/${P}/evaluation_runs/${evaluationRun.evaluation_run_id}/finish`, { summary: {} });

  // …and scorer feedback with tags and ratings, in two different seconds (so one-second buckets split them).
  const feedback = (scorer: string, tags: string[], rating: number) =>
    post('/feedback/create', {
      project_id: P,
      weave_ref: `weave:///${P}/call/${evaluationRun.evaluation_run_id}`,
      feedback_type: `wandb.runnable.${scorer}`,
      payload: { output: rating },
      runnable_ref: `weave:///${P}/object/${scorer}:s1`,
      scorer_tags: tags,
      scorer_ratings: { _rating_: rating },
    });
  await feedback('Toxicity', ['safe'], 0.1);
  await feedback('Relevance', ['on-topic', 'safe'], 0.85);
  await sleep(1100);
  await feedback('Toxicity', ['safe'], 0.15);
  await feedback('Relevance', ['off-topic'], 0.3);
}, 120_000);
afterAll(() => harness?.close());

const pct = (fraction: number) => `${Math.round(fraction * 1000) / 10}%`;
const num = (value: number) => new Intl.NumberFormat('en', { maximumFractionDigits: 3 }).format(value);

describe('dashboard: Evaluations', () => {
  it('lists the runs of the SDK and of the evaluation API with their means per scorer', async () => {
    const { page } = harness;
    await harness.signIn();
    await harness.open(`/evaluations?project=${encodeURIComponent(P)}`);
    const table = page.getByRole('table', { name: 'Evaluation runs, newest first' });
    await table.getByRole('row').nth(3).waitFor();
    expect(await table.getByRole('row').count()).toBe(4); // header + 3 runs
    expect(await page.getByLabel('Project').inputValue()).toBe(P); // the picker shows the project of the URL

    const headers = await table.getByRole('columnheader').allTextContents();
    expect(headers).toEqual(expect.arrayContaining(['closeness', 'exact_match · correct', 'Helpfulness']));
    for (const model of ['geo_v1', 'geo_v2'] as const) {
      const row = table.getByRole('row').filter({ hasText: model });
      await expect.poll(() => row.locator('[data-metric="closeness"]').textContent()).toBe(num(summaries[model].closeness.mean));
      expect(await row.locator('[data-metric="exact_match · correct"]').textContent()).toBe(pct(summaries[model].exact_match.correct.true_fraction));
      expect(await row.textContent()).toMatch(/capitals · Weave SDK/);
    }
    const api = table.getByRole('row').filter({ hasText: 'support-bot' });
    expect(await api.locator('[data-metric="Helpfulness"]').textContent()).toBe(num(0.65));
    expect(await api.textContent()).toMatch(/support-eval · evaluation API.*success\s*2/);

    await harness.checkAccessibility('evaluations');
    await harness.screenshot('evaluations');
  });

  it('compares two runs side by side per example and per scorer, marking the better one', async () => {
    const { page } = harness;
    await page.getByRole('checkbox', { name: /^Compare geo_v1 on capitals/ }).check();
    // Keyboard: Tab to the second run's box and tick it with Space.
    await page.getByRole('checkbox', { name: /^Compare geo_v2 on capitals/ }).focus();
    await page.keyboard.press('Space');
    const comparison = page.getByTestId('comparison');
    const examples = comparison.getByTestId('comparison-examples');
    await examples.waitFor();
    expect(new URL(page.url()).searchParams.get('a')).toBeTruthy();

    // geo_v1 answered Kyoto, geo_v2 Tokyo: run B is better on both metrics for Japan, run A better for Peru (Lima vs Lina).
    const japan = examples.getByRole('row').filter({ hasText: 'Capital of Japan?' });
    expect(await japan.locator('[data-metric="closeness"][data-side="A"]').textContent()).toMatch(/^0\.2/);
    expect(await japan.locator('[data-metric="closeness"][data-side="B"]').textContent()).toMatch(/^1/);
    expect(await japan.locator('[data-metric="exact_match · correct"][data-side="A"]').textContent()).toMatch(/^false.*\(worse\)/);
    expect(await japan.locator('[data-metric="exact_match · correct"][data-side="B"]').textContent()).toMatch(/^true.*\(better\)/);
    expect(await japan.locator('[data-metric="closeness"][data-side="B"]').getAttribute('class')).toContain('eval-better');
    expect(await japan.textContent()).toMatch(/Kyoto.*Tokyo/);
    const peru = examples.getByRole('row').filter({ hasText: 'Capital of Peru?' });
    expect(await peru.locator('[data-metric="closeness"][data-side="A"]').getAttribute('class')).toContain('eval-better');
    expect(await examples.getByRole('row').count()).toBe(2 + 3); // two header rows + three dataset rows

    const summary = comparison.getByTestId('comparison-summary');
    expect(await summary.getByRole('row').filter({ hasText: 'exact_match · correct' }).textContent()).toContain(
      `${pct(summaries.geo_v1.exact_match.correct.true_fraction)}`,
    );

    await comparison.getByRole('checkbox', { name: /Only examples the runs score differently/ }).check();
    await expect.poll(() => examples.getByRole('row').count()).toBe(2 + 2); // France is scored the same

    await harness.checkAccessibility('evaluations-compare');
    await page.evaluate(`(() => { const card = document.querySelector('[data-testid="comparison"]'); card.scrollIntoView({ block: 'start' }); document.querySelector('main').scrollBy?.(0, -16); window.scrollBy(0, -16); })()`);
    await harness.screenshot('evaluations-compare');
  });

  it('charts scorer feedback per bucket and scorer, with tag counts and the rating distribution, under the aggregate filters', async () => {
    const { page, platform } = harness;
    const feedbackSection = page.locator('section[aria-labelledby="feedback-heading"]');
    await page.getByLabel('Time window').selectOption('15m');
    await page.getByLabel('Bucket size').selectOption('1');
    await feedbackSection.getByRole('button', { name: 'Apply' }).click();

    // The seeded number of points: one per (second, scorer) the feedback was recorded in.
    const { body } = await platform.graphql(`{ project(entity: "${ENTITY}", name: "${PROJECT}") { feedback(first: 100) { nodes { createdAt runnableRef } } } }`);
    const records = body.data.project.feedback.nodes as { createdAt: string; runnableRef: string | null }[];
    expect(records).toHaveLength(6); // 2 scores of the evaluation API + 4 seeded
    const expected = new Set(records.map((record) => `${Math.floor(new Date(record.createdAt).getTime() / 1000)}/${record.runnableRef}`)).size;
    expect(expected).toBeGreaterThanOrEqual(4); // Toxicity and Relevance in two seconds at least
    const chart = feedbackSection.getByTestId('time-series-chart').first();
    await expect.poll(() => chart.getAttribute('data-points')).toBe(String(expected));
    expect(await chart.getAttribute('data-series')).toBe('3'); // Helpfulness, Relevance, Toxicity

    const tags = feedbackSection.getByTestId('tag-counts');
    expect(await tags.getByRole('row').filter({ hasText: 'safe' }).textContent()).toMatch(/safe\s*3/);
    expect(await tags.getByRole('row').filter({ hasText: 'off-topic' }).textContent()).toMatch(/off-topic\s*1/);
    const ratings = feedbackSection.getByTestId('rating-distribution');
    expect(await ratings.getByRole('row').filter({ hasText: '0.0–0.2' }).textContent()).toMatch(/2$/);
    expect(await ratings.getByRole('row').filter({ hasText: '0.8–1.0' }).textContent()).toMatch(/1$/);

    // Rating bounds and tags narrow what is aggregated (the same filters as /feedback/aggregate).
    await page.getByLabel('Min rating').fill('0.5');
    await page.getByLabel('Tags').fill('safe');
    await feedbackSection.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => chart.getAttribute('data-points')).toBe('1'); // only Relevance 0.85, tagged safe
    expect(new URL(page.url()).searchParams.get('rmin')).toBe('0.5');

    await page.getByLabel('Min rating').fill('2');
    await feedbackSection.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => feedbackSection.getByRole('alert').textContent()).toMatch(/between 0 and 1/);

    await page.getByLabel('Min rating').fill('');
    await page.getByLabel('Tags').fill('');
    await feedbackSection.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => chart.getAttribute('data-points')).toBe(String(expected));
    await harness.checkAccessibility('evaluations-feedback');
    await feedbackSection.scrollIntoViewIfNeeded();
    await harness.screenshot('evaluations-feedback');
  });

  it('shows the empty state for a project without evaluations, and the server\'s refusal to a viewer outside the team', async () => {
    const { page, platform } = harness;
    await harness.open(`/evaluations?project=${encodeURIComponent('trellis/default')}`);
    await page.getByText('No evaluation runs in this project yet.').waitFor();
    await page.getByText('No feedback in this window with these filters.').waitFor();

    const outsider = await platform.createUser('eval-outsider', {});
    await page.getByRole('button', { name: 'Sign out' }).click();
    await harness.signIn(outsider.key);
    await harness.open(`/evaluations?project=${encodeURIComponent(P)}`);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/FORBIDDEN/);
    await harness.forgetProblems();
  });
});
