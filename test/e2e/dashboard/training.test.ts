import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The Training page against the embedded trainer: a model and a short RL job (2 sampled groups, 3 optimizer steps)
 * seeded through the training REST API as ART sends them; the page lists the model with its checkpoint, follows
 * the job live to SUCCEEDED, charts one loss point per reported step and shows the event log; a second, long job
 * is cancelled from its page.
 */
let harness: DashboardHarness;
const PROJECT = 'trellis/training-ui';
const STEPS = 3;

beforeAll(async () => {
  // Workers on: the embedded trainer runs the jobs off graphile-worker.
  harness = await startDashboardHarness({ workers: true });
});
afterAll(() => harness?.close());

async function call(method: string, route: string, body?: unknown) {
  const response = await harness.platform.fetch(`/training${route}`, {
    method,
    headers: { authorization: `Bearer ${harness.platform.adminKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Rollouts sampled with logprobs through /v1/chat/completions (as ART samples them), rewards distinct in a group. */
async function sampleGroups(model: string, groups: number, perGroup: number) {
  const result = [];
  for (let g = 0; g < groups; g++) {
    const messages = [{ role: 'user', content: `Say something about city ${g}.` }];
    const response = await call('POST', '/v1/chat/completions', { model, messages, n: perGroup, max_tokens: 6, temperature: 1, seed: g, logprobs: true });
    expect(response.status).toBe(200);
    result.push({
      trajectories: response.body.choices.map((choice: unknown, index: number) => ({ messages_and_choices: [...messages, choice], reward: index / perGroup })),
    });
  }
  return result;
}

async function jobEvents(jobId: string): Promise<{ id: string; type: string; data: Record<string, unknown> }[]> {
  return (await call('GET', `/v1/preview/training-jobs/${jobId}/events?limit=1000`)).body.data;
}

let model: { id: string; name: string; entity: string; project: string };
let groups: unknown[];

describe('dashboard: Training', () => {
  it('shows the empty state for a project without models', async () => {
    const { page } = harness;
    await harness.signIn();
    await harness.open(`/training?project=${encodeURIComponent('trellis/default')}`);
    await page.getByRole('heading', { level: 1, name: 'Training' }).waitFor();
    await page.getByText('No trainable models in this project yet.').waitFor();
    await page.getByText('No training jobs yet.').waitFor();

    // A job that does not exist (or that the viewer may not see): the server's answer, not a blank page.
    await harness.open('/training/jobs/00000000-0000-4000-8000-000000000000');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/NOT_FOUND/);
  });

  it('follows an RL job live to SUCCEEDED: its curves have one point per step and the event log shows every event', async () => {
    const { page } = harness;
    const created = await call('POST', '/v1/preview/models', { entity: null, project: 'training-ui', name: 'agent-007', base_model: 'trellis-tiny' });
    expect(created.status).toBe(200);
    model = created.body;
    groups = await sampleGroups('trellis-tiny', 2, 3);
    const job = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: groups, experimental_config: { epochs: STEPS } });
    expect(job.status).toBe(200);

    // The job page, opened while the job is queued or running, polls until it ends (reads of the job are recorded).
    const reads: number[] = [];
    const onRequest = (request: { url(): string; postData(): string | null }) => {
      if (request.url().endsWith('/graphql') && /"operationName":"TrainingJob(Detail|Events)"/.test(request.postData() ?? '')) reads.push(Date.now());
    };
    page.on('request', onRequest);
    await harness.open(`/training/jobs/${job.body.id}`);
    await page.getByRole('heading', { level: 1, name: /RL job/ }).waitFor();
    const status = page.getByTestId('job-status');
    // Training takes seconds: the page sees the job unfinished first and says it is live.
    expect(await status.textContent()).toMatch(/QUEUED|RUNNING/);
    await page.getByText('Live, refreshed every 2 s').waitFor();
    await expect.poll(() => status.textContent(), { timeout: 60_000, interval: 250 }).toBe('SUCCEEDED');
    const ended = Date.now();
    await page.getByText('Live, refreshed every 2 s').waitFor({ state: 'detached' });
    // Polling stops once the job has ended: after the event log's one final read, nothing for two polling periods.
    await page.waitForTimeout(5000);
    page.off('request', onRequest);
    expect(reads.filter((time) => time < ended).length).toBeGreaterThan(2);
    expect(reads.filter((time) => time > ended + 1000)).toEqual([]);

    const events = await jobEvents(job.body.id);
    const steps = events.filter((event) => event.type === 'gradient_step');
    expect(steps).toHaveLength(STEPS);
    expect(events.map((event) => event.type)).toEqual(['training_started', ...steps.map(() => 'gradient_step'), 'training_ended']);

    const loss = page.locator('[data-metric="loss"] [data-testid="time-series-chart"]');
    await expect.poll(() => loss.getAttribute('data-points')).toBe(String(STEPS));
    expect(await page.locator('[data-metric="reward"] [data-testid="time-series-chart"]').getAttribute('data-points')).toBe(String(STEPS));
    expect(await page.locator('[data-metric="gradNorm"] [data-testid="time-series-chart"]').getAttribute('data-points')).toBe(String(STEPS));
    // Learning rate and throughput curves too, every chart with its axis titles.
    expect(await page.locator('[data-metric="learningRate"] [data-testid="time-series-chart"]').getAttribute('data-points')).toBe(String(STEPS));
    expect(await page.locator('[data-metric="tokensPerSecond"] [data-testid="time-series-chart"]').getAttribute('data-points')).toBe(String(STEPS));
    expect(await loss.getByRole('img').getAttribute('aria-label')).toMatch(/^Loss \(loss by step\)/);
    expect(await page.locator('[data-metric="tokensPerSecond"]').getByRole('img').getAttribute('aria-label')).toMatch(/^Throughput \(tokens\/s by step\)/);
    // Smoothing (EMA) by keyboard: the smoothed curve over the raw one (dashed), and off again.
    const slider = page.getByLabel('Smoothing (EMA)');
    await slider.focus();
    await page.keyboard.press('End');
    await expect.poll(() => loss.getAttribute('data-series')).toBe('2');
    expect(await loss.getAttribute('data-points')).toBe(String(2 * STEPS));
    expect(await loss.getByRole('img').getAttribute('aria-label')).toMatch(/Loss \(raw\), 3 points; Loss \(smoothed\), 3 points/);
    await page.keyboard.press('Home');
    await expect.poll(() => loss.getAttribute('data-series')).toBe('1');

    const log = page.getByRole('table', { name: 'Events of the job' });
    await expect.poll(() => log.locator('tbody tr').count()).toBe(events.length);
    const types = await log.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(types).toEqual(events.map((event) => event.type.replace(/_/g, ' ')));
    // The step's loss as the trainer reported it, in the log row of step 1.
    const firstLoss = steps[0]!.data.loss as number;
    await page.getByRole('row', { name: new RegExp(`loss ${firstLoss.toPrecision(4)}`) }).waitFor();

    // A finished job cannot be cancelled from the page.
    expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
    expect(await page.locator('.page-header').textContent()).toContain(`on ${model.name} (trellis-tiny) in ${PROJECT}`);
    await harness.checkAccessibility('training job');
    await harness.screenshot('training-job');
  });

  it('lists the model with its base model and checkpoint (step and aliases), and the job with its final status', async () => {
    const { page } = harness;
    await harness.open(`/training?project=${encodeURIComponent(PROJECT)}`);
    const models = page.getByRole('table', { name: 'Trainable models' });
    const row = models.getByRole('row', { name: new RegExp(model.name) });
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('trellis-tiny');
    expect(text).toContain(`step ${STEPS}`);
    expect(text).toContain('latest');

    const jobs = page.getByRole('table', { name: 'Training jobs' });
    await expect.poll(() => jobs.locator('tbody tr').count()).toBe(1);
    const jobRow = (await jobs.locator('tbody tr').first().textContent()) ?? '';
    expect(jobRow).toMatch(/RL/);
    expect(jobRow).toMatch(/SUCCEEDED/);
    expect(jobRow).toContain(model.name);
    await harness.checkAccessibility('training');
    await harness.screenshot('training');
    expect(harness.problems).toEqual([]);
  });

  it('cancels a running job after confirmation; its status becomes CANCELLED', async () => {
    const { page } = harness;
    // Many epochs keep the job busy long enough to cancel it.
    const slow = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: groups, experimental_config: { epochs: 5000 } });
    expect(slow.status).toBe(200);
    await harness.open(`/training?project=${encodeURIComponent(PROJECT)}`);
    const jobs = page.getByRole('table', { name: 'Training jobs' });
    await expect.poll(() => jobs.locator('tbody tr').count()).toBe(2);
    await jobs.locator('tbody tr').first().getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: /RL job/ }).waitFor();
    await expect.poll(() => page.getByTestId('job-status').textContent()).toMatch(/QUEUED|RUNNING/);

    // By keyboard: Enter on the button opens the confirmation with the safe choice focused; Escape leaves the job alone.
    await page.getByRole('button', { name: 'Cancel job' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Cancel this training job?' });
    await dialog.waitFor();
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Keep it running');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await dialog.getByRole('button', { name: 'Keep it running' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await call('GET', `/v1/preview/training-jobs/${slow.body.id}`)).body.status).toMatch(/QUEUED|RUNNING/);

    await page.getByRole('button', { name: 'Cancel job' }).click();
    await dialog.getByRole('button', { name: 'Yes, cancel the job' }).click();
    await expect.poll(() => page.getByTestId('job-status').textContent()).toBe('CANCELLED');
    expect((await call('GET', `/v1/preview/training-jobs/${slow.body.id}`)).body.status).toBe('CANCELLED');
    await expect.poll(() => page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
  });

  it('shows the server\'s refusal when the cancel is refused (the viewer left the team after opening the page)', async () => {
    const { page, platform } = harness;
    const queued = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: groups, experimental_config: { epochs: 5000 } });
    const member = await platform.createUser('training-member', { trellis: 'MEMBER' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await harness.signIn(member.key);
    await harness.open(`/training/jobs/${queued.body.id}`);
    await page.getByRole('heading', { level: 1, name: /RL job/ }).waitFor();
    const removed = await platform.graphql('mutation { removeTeamMember(team: "trellis", username: "training-member") }');
    expect(removed.body.errors).toBeUndefined();

    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, cancel the job' }).click();
    await expect.poll(() => page.getByTestId('cancel-error').textContent()).toMatch(/NOT_FOUND|FORBIDDEN/);
    expect((await call('GET', `/v1/preview/training-jobs/${queued.body.id}`)).body.status).toMatch(/QUEUED|RUNNING/);
    await harness.forgetProblems();
    await call('POST', `/v1/preview/training-jobs/${queued.body.id}/cancel`);
  });

  it('overlays the model\'s other jobs on the curves of one', async () => {
    const { page } = harness;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await harness.signIn();
    // A second short job of the same model, run to its end.
    const second = await call('POST', '/v1/preview/training-jobs', { model_id: model.id, trajectory_groups: groups, experimental_config: { epochs: 2 } });
    expect(second.status).toBe(200);
    await expect.poll(async () => (await call('GET', `/v1/preview/training-jobs/${second.body.id}`)).body.status, { timeout: 60_000, interval: 500 }).toBe('SUCCEEDED');

    await harness.open(`/training/jobs/${second.body.id}`);
    const loss = page.locator('[data-metric="loss"] [data-testid="time-series-chart"]');
    await expect.poll(() => loss.getAttribute('data-points')).toBe('2');
    await page.getByRole('checkbox', { name: 'Overlay the model’s other jobs' }).check();
    // Every other job of the model that reported a loss becomes one more series (the cancelled ones may have some steps).
    const { body } = await harness.platform.graphql(`query($id: ID!) { trainingModel(id: $id) { jobs(first: 10) { nodes { id metrics { loss } } } } }`, { id: model.id });
    const others = (body.data.trainingModel.jobs.nodes as { id: string; metrics: { loss: number | null }[] }[])
      .filter((job) => job.id !== second.body.id)
      .map((job) => job.metrics.filter((step) => step.loss !== null).length)
      .filter((count) => count > 0);
    expect(others.length).toBeGreaterThanOrEqual(1); // the 3-step job at least
    await expect.poll(() => loss.getAttribute('data-series')).toBe(String(1 + others.length));
    expect(await loss.getAttribute('data-points')).toBe(String(2 + others.reduce((sum, count) => sum + count, 0)));
    expect(await loss.getByRole('img').getAttribute('aria-label')).toMatch(/RL job \w{8}, \d+ points; .*this job, 2 points$/);
    await harness.checkAccessibility('training job overlay');
    await harness.screenshot('training-job');
  });
});
