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
  const { stdout } = await run(process.execPath, [SDK_SCRIPT, P, 'geo_v1', 'geo_v2', 'geo_v3'], {
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

/**
 * In the comparison's example table: each cell's painted text (its text nodes' boxes, leaving out text only screen
 * readers get) must stay inside the cell and off every other cell. Answers what does not.
 */
async function paintedOverlaps(): Promise<string[]> {
  return (await harness.page.evaluate(`(() => {
        const table = document.querySelector('[data-testid="comparison-examples"]');
        const cells = [...table.querySelectorAll('th, td')];
        const box = (r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom });
        const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        // What a cell paints: the boxes of its text, leaving out text only screen readers get (clipped to 1 px).
        const painted = (cell) => {
          const rects = [];
          const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (node.parentElement.closest('.visually-hidden')) continue;
            const range = document.createRange();
            range.selectNodeContents(node);
            rects.push(...[...range.getClientRects()].filter((r) => r.width > 0));
          }
          if (rects.length === 0) return { left: 0, right: 0, top: 0, bottom: 0 };
          return { left: Math.min(...rects.map((r) => r.left)), right: Math.max(...rects.map((r) => r.right)), top: Math.min(...rects.map((r) => r.top)), bottom: Math.max(...rects.map((r) => r.bottom)) };
        };
        const boxes = cells.map((cell) => ({ cell, own: box(cell.getBoundingClientRect()), content: painted(cell) }));
        const problems = [];
        for (const a of boxes) {
          if (a.content.right - a.content.left === 0) continue;
          if (a.content.left < a.own.left - 0.5 || a.content.right > a.own.right + 0.5) problems.push('outside its cell: ' + a.cell.textContent.slice(0, 40));
          for (const b of boxes) if (b !== a && meets(a.content, b.own) && !b.cell.contains(a.cell) && !a.cell.contains(b.cell)) problems.push(a.cell.textContent.slice(0, 30) + ' over ' + b.cell.textContent.slice(0, 30));
        }
        return problems;
      })()`)) as string[];
}

const pct = (fraction: number) => `${Math.round(fraction * 1000) / 10}%`;
const num = (value: number) => new Intl.NumberFormat('en', { maximumFractionDigits: 3 }).format(value);

describe('dashboard: Evaluations', () => {
  it('lists the runs of the SDK and of the evaluation API with their means per scorer', async () => {
    const { page } = harness;
    await harness.signIn();
    await harness.open(`/evaluations?project=${encodeURIComponent(P)}`);
    const table = page.getByRole('table', { name: 'Evaluation runs, newest first' });
    await table.getByRole('row').nth(4).waitFor();
    expect(await table.getByRole('row').count()).toBe(5); // header + 4 runs
    expect(await page.getByLabel('Project').inputValue()).toBe(P); // the picker shows the project of the URL

    const headers = await table.getByRole('columnheader').allTextContents();
    expect(headers).toEqual(expect.arrayContaining(['closeness', 'exact_match · correct', 'Helpfulness']));
    for (const model of ['geo_v1', 'geo_v2', 'geo_v3'] as const) {
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

  it('compares two runs against a baseline per example and per scorer, marking better and worse and the words that differ', async () => {
    const { page } = harness;
    await page.getByRole('checkbox', { name: /^Compare geo_v1 on capitals/ }).check();
    // Keyboard: Tab to the second run's box and tick it with Space.
    await page.getByRole('checkbox', { name: /^Compare geo_v2 on capitals/ }).focus();
    await page.keyboard.press('Space');
    const comparison = page.getByTestId('comparison');
    const examples = comparison.getByTestId('comparison-examples');
    await examples.waitFor();
    const [v1, v2] = (new URL(page.url()).searchParams.get('runs') ?? '').split(',');
    expect(v1 && v2).toBeTruthy();

    // geo_v1 (A, the baseline) answered Kyoto, geo_v2 Tokyo: B is better on both metrics for Japan, worse for Peru (Lina).
    const japan = examples.getByRole('row').filter({ hasText: 'Capital of Japan?' });
    expect(await japan.locator('[data-metric="closeness"][data-side="A"]').textContent()).toMatch(/^0\.2$/);
    expect(await japan.locator('[data-metric="closeness"][data-side="B"]').textContent()).toMatch(/^1.*\(better than the baseline\)/);
    expect(await japan.locator('[data-metric="exact_match · correct"][data-side="A"]').textContent()).toBe('false');
    expect(await japan.locator('[data-metric="exact_match · correct"][data-side="B"]').textContent()).toMatch(/^true.*\(better than the baseline\)/);
    expect(await japan.locator('[data-metric="closeness"][data-side="B"]').getAttribute('class')).toContain('eval-better');
    // The word diff against the baseline's output: Kyoto removed, Tokyo inserted.
    const japanB = japan.locator('[data-output="B"]');
    expect(await japanB.locator('del').allTextContents()).toEqual(['Kyoto']);
    expect(await japanB.locator('ins').allTextContents()).toEqual(['Tokyo']);
    expect(await japan.locator('[data-output="A"] del, [data-output="A"] ins').count()).toBe(0);
    const peru = examples.getByRole('row').filter({ hasText: 'Capital of Peru?' });
    expect(await peru.locator('[data-metric="closeness"][data-side="B"]').getAttribute('class')).toContain('eval-worse');
    expect(await examples.getByRole('row').count()).toBe(1 + 4); // the header row + four dataset rows

    const summary = comparison.getByTestId('comparison-summary');
    const exact = summary.getByRole('row').filter({ hasText: 'exact_match · correct' });
    expect(await exact.locator('[data-side="A"]').textContent()).toBe(pct(summaries.geo_v1.exact_match.correct.true_fraction));
    expect(await exact.locator('[data-side="B"]').textContent()).toContain(pct(summaries.geo_v2.exact_match.correct.true_fraction));

    await comparison.getByRole('checkbox', { name: /Only examples the runs score differently/ }).check();
    await expect.poll(() => examples.getByRole('row').count()).toBe(1 + 3); // France is scored the same
    await comparison.getByRole('checkbox', { name: /Only examples the runs score differently/ }).uncheck();

    // Swapping the baseline: geo_v2 becomes A, and geo_v1's Japan answer is now the worse one.
    await summary.getByRole('button', { name: /Make baseline: run B, geo_v2 on capitals/ }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('runs')).toBe(`${v2},${v1}`);
    await expect.poll(() => summary.getByRole('columnheader').nth(1).textContent()).toMatch(/geo_v2.*baseline/);
    await expect.poll(() => japan.locator('[data-metric="closeness"][data-side="B"]').textContent()).toMatch(/^0\.2.*\(worse than the baseline\)/);
    expect(await japan.locator('[data-output="B"] del').allTextContents()).toEqual(['Tokyo']);
    expect(await japan.locator('[data-output="B"] ins').allTextContents()).toEqual(['Kyoto']);
  });

  it('lays the example table out without overlap at 1024 and 1440 px, a long prompt and URL included', async () => {
    const { page } = harness;
    const examples = page.getByTestId('comparison-examples');
    for (const width of [1024, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await examples.waitFor();
      // Each cell's painted content (a Range over its contents) must stay inside the cell and off every other cell.
      const overlaps = await paintedOverlaps();
      expect(overlaps, `at ${width} px`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('compares four runs (SDK and evaluation API), and each example links to the call that produced it', async () => {
    const { page, platform } = harness;
    await page.getByRole('checkbox', { name: /^Compare geo_v3 on capitals/ }).check();
    await page.getByRole('checkbox', { name: /^Compare support-bot on support-eval/ }).check();
    const examples = page.getByTestId('comparison-examples');
    await expect.poll(() => examples.getAttribute('data-runs')).toBe('4');
    expect(await examples.getByRole('columnheader').allTextContents()).toEqual([
      'Example',
      expect.stringMatching(/geo_v2.*baseline/),
      expect.stringMatching(/geo_v1/),
      expect.stringMatching(/geo_v3/),
      expect.stringMatching(/support-bot/),
    ]);
    // Four rows of the dataset + the API run's two questions, which only run D has.
    expect(await examples.getByRole('row').count()).toBe(1 + 4 + 2);
    expect(await examples.getByRole('row').filter({ hasText: 'Reset my password' }).textContent()).toMatch(/only in D.*Not in run A/);
    const japanC = examples.getByRole('row').filter({ hasText: 'Capital of Japan?' }).locator('[data-output="C"]');
    expect(await japanC.locator('ins').allTextContents()).toEqual(['The capital of Japan is ']);
    // Four runs at 1024 px still leave every cell's text in its cell.
    await page.setViewportSize({ width: 1024, height: 900 });
    expect(await paintedOverlaps(), 'four runs at 1024 px').toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });

    // The link of run C's Japan answer opens its predictAndScore call in its trace.
    const runs = (new URL(page.url()).searchParams.get('runs') ?? '').split(',');
    expect(runs).toHaveLength(4);
    const { body } = await platform.graphql(
      `query($runs: [String!]!) { project(entity: "${ENTITY}", name: "${PROJECT}") { evaluationRunsComparison(runs: $runs) { examples { inputs results { callId } } } } }`,
      { runs },
    );
    const compared = body.data.project.evaluationRunsComparison.examples as { inputs: { question: string }; results: { callId: string }[] }[];
    const row = compared.findIndex((example) => example.inputs.question === 'Capital of Japan?');
    const callId = compared[row]!.results[2]!.callId;
    const back = page.url();
    await page.getByRole('link', { name: `Open call of run C for example ${row + 1}` }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('call')).toBe(callId);
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/ui/traces/${ENTITY}/${PROJECT}/`));
    await page.goBack(); // the call link's page replaced itself with the trace
    await expect.poll(() => page.url()).toBe(back);

    // The API run out again: three SDK runs, baseline geo_v2, for the screenshot.
    await page.getByRole('checkbox', { name: /^Compare support-bot on support-eval/ }).uncheck();
    await expect.poll(() => examples.getAttribute('data-runs')).toBe('3');
    await harness.checkAccessibility('evaluations-compare');
    await page.emulateMedia({ colorScheme: 'dark' });
    await harness.checkAccessibility('evaluations-compare in dark mode');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.evaluate(`(() => { const card = document.querySelector('[data-testid="comparison"]'); card.scrollIntoView({ block: 'start' }); window.scrollBy(0, -16); })()`);
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
    // The histogram spans the ratings given (0.1 to 0.85), in ten bins.
    const ratings = feedbackSection.getByTestId('rating-distribution');
    expect(await ratings.getAttribute('data-items')).toBe('10');
    expect(await ratings.getByRole('row').nth(1).textContent()).toMatch(/^0\.1–0\.175\s*2/);
    expect(await ratings.getByRole('row').nth(10).textContent()).toMatch(/^0\.775–0\.85\s*1/);

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

  it('draws the chosen window (Last 7 days spans exactly 7 days), a lone bucket as a dot, and a 1–5 judge\'s ratings over 1 to 5', async () => {
    const { page } = harness;
    // A judge rating on a 1–5 scale, 100 times (84 above 1, which a 0–1 histogram lost), all within seconds: one bucket.
    const JUDGED = 'trellis/judged';
    const scale = [...Array(16).fill(1), ...Array(20).fill(2), ...Array(24).fill(3), ...Array(25).fill(4), ...Array(15).fill(5)];
    for (const [index, rating] of scale.entries()) {
      await post('/feedback/create', {
        project_id: JUDGED,
        weave_ref: `weave:///${JUDGED}/call/0193a7c0-0000-7000-8000-${String(index).padStart(12, '0')}`,
        feedback_type: 'wandb.runnable.Judge',
        payload: { output: rating },
        runnable_ref: `weave:///${JUDGED}/object/Judge:j1`,
        scorer_ratings: { _rating_: rating },
      });
    }
    await harness.open(`/evaluations?project=${encodeURIComponent(JUDGED)}&window=7d`);
    const feedbackSection = page.locator('section[aria-labelledby="feedback-heading"]');
    const ratings = feedbackSection.getByTestId('rating-distribution');
    await ratings.waitFor();
    const bars = ratings.locator('tbody tr');
    expect(await bars.locator('th').allTextContents()).toEqual(['1', '2', '3', '4', '5']);
    expect(await bars.locator('td.align-right').allTextContents()).toEqual(['16', '20', '24', '25', '15']);

    // The time axis is the window itself, not the data's few seconds.
    const chart = feedbackSection.getByTestId('time-series-chart').first();
    await expect.poll(() => chart.getAttribute('data-x-max')).not.toBeNull();
    const [min, max] = [Number(await chart.getAttribute('data-x-min')), Number(await chart.getAttribute('data-x-max'))];
    expect(max - min).toBe(7 * 86_400_000);
    expect(Math.abs(max - Date.now())).toBeLessThan(60_000);
    expect(await chart.getAttribute('data-points')).toBe('1');

    // The one bucket is drawn: pixels of the series' colour on the canvas.
    const painted = (await page.evaluate(`(() => {
      const figure = document.querySelector('section[aria-labelledby="feedback-heading"] [data-testid="time-series-chart"]');
      const canvas = figure.querySelector('canvas');
      const [r, g, b] = figure.getAttribute('data-colors').split(' ')[0].match(/[0-9a-f]{2}/gi).map((hex) => parseInt(hex, 16));
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i] - r) < 12 && Math.abs(data[i + 1] - g) < 12 && Math.abs(data[i + 2] - b) < 12 && data[i + 3] > 200) count++;
      return count;
    })()`)) as number;
    expect(painted).toBeGreaterThan(10);
    await harness.checkAccessibility('evaluations-judged');
    await page.emulateMedia({ colorScheme: 'dark' });
    await harness.checkAccessibility('evaluations-judged in dark mode');
    await page.emulateMedia({ colorScheme: 'light' });
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
