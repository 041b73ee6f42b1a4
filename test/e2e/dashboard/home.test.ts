import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

let harness: DashboardHarness;
beforeAll(async () => {
  harness = await startDashboardHarness();
  // Something to count and to list as recent activity: a trace in the bootstrap project.
  const response = await harness.platform.fetch('/traces/call/start', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${harness.platform.adminKey}` },
    body: JSON.stringify({ start: { project_id: 'trellis/default', op_name: 'home_page_op', started_at: new Date().toISOString(), inputs: { question: 'hi' }, attributes: {} } }),
  });
  expect(response.status).toBe(200);
  const { id } = (await response.json()) as { id: string };
  const end = await harness.platform.fetch('/traces/call/end', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${harness.platform.adminKey}` },
    body: JSON.stringify({ end: { project_id: 'trellis/default', id, ended_at: new Date(Date.now() + 42).toISOString(), output: 'hello', summary: {} } }),
  });
  expect(end.status).toBe(200);
  // And an evaluation run (v2 evaluation API), for the Evaluations count.
  const evaluation = await harness.platform.fetch('/traces/v2/trellis/default/evaluation_runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${harness.platform.adminKey}` },
    body: JSON.stringify({ evaluation: 'home-eval', model: 'home-model' }),
  });
  expect(evaluation.status).toBe(200);
});
afterAll(() => harness?.close());

describe('dashboard: sign-in and Home', () => {
  it('refuses a wrong key with the server\'s reason, signs in with a good one, and keeps the key out of the URL', async () => {
    const { page, platform } = harness;
    await harness.open('/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await harness.checkAccessibility('sign-in');
    await harness.screenshot('sign-in');

    await page.getByLabel('API key').fill('not-a-real-key-0000000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/UNAUTHENTICATED/);
    await harness.forgetProblems(); // the browser logs the 401 it was just given

    await harness.signIn();
    expect(page.url()).not.toContain(platform.adminKey);
    expect(await page.evaluate(`sessionStorage.getItem('trellis.dashboard.apiKey')`)).toBe(platform.adminKey);
    // A reload stays signed in (same tab), and every nav page is listed.
    await page.reload();
    await page.getByTestId('signed-in-as').waitFor();
    const nav = await page.getByRole('navigation', { name: 'Pages' }).getByRole('list').getByRole('link').allTextContents();
    expect(nav).toEqual(['Home', 'Traces', 'Evaluations', 'Monitors', 'Datasets', 'Prompts', 'Inference', 'Training', 'Automations', 'Settings']);
  });

  it('shows the viewer\'s teams and projects with counts, and the seeded trace as recent activity', async () => {
    const { page } = harness;
    await harness.open('/');
    await page.getByRole('heading', { name: 'Recent traces' }).waitFor();
    const team = page.locator('section[data-team="trellis"]');
    await team.getByRole('row', { name: /default/ }).waitFor();
    const row = (await team.getByRole('row', { name: /default/ }).textContent()) ?? '';
    expect(row).toMatch(/default\s*2\s*2\s*1\s*0/); // calls 2 and traces 2 (the trace, the evaluation run), evaluations 1, inference 0
    await expect.poll(() => page.getByRole('link', { name: 'home_page_op' }).count()).toBe(1);
    const stat = (label: string) => page.locator('.stat', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd').textContent();
    expect(await stat('Evaluations')).toBe('1');
    expect(await stat('Training jobs')).toBe('0');

    // Live: a run created now arrives over graphql-ws (/graphql/ws, the key in connection_init).
    await page.getByTestId('live-events').getByText('Nothing yet').waitFor();
    // The subscription streams only events after it started: create runs until one arrives (the first, normally).
    const live = page.getByTestId('live-events');
    await expect
      .poll(
        async () => {
          const text = (await live.textContent()) ?? '';
          if (!text.includes('RUN_STATE')) {
            const created = await harness.platform.graphql('mutation { createRun(input: { entity: "trellis", project: "default" }) { id } }');
            expect(created.body.errors).toBeUndefined();
          }
          return text;
        },
        { timeout: 10_000, interval: 700 },
      )
      .toMatch(/RUN_STATE.*trellis\/default/);
    await harness.checkAccessibility('home');
    await harness.screenshot('home');

    // Traces without ?project= opens on the first project of the viewer's teams (the personal team has none).
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Traces' }).click();
    await page.getByRole('link', { name: 'home_page_op' }).waitFor();
    expect(await page.getByLabel('Project').inputValue()).toBe('trellis/default');

    // Client-side navigation and a deep link (browser navigation to /ui/... gets the app).
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await harness.open('/settings');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    expect(harness.problems).toEqual([]);
  });

  it('signs out: the key is forgotten and the sign-in form is back', async () => {
    const { page } = harness;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(`sessionStorage.getItem('trellis.dashboard.apiKey')`)).toBeNull();
  });
});
