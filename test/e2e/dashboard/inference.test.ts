import { createServer, type AddressInfo, type Socket } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InferenceServices } from '../../../subgraphs/inference/services.js';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The Inference page against usage sent by the real OpenAI SDK (/inference/v1, the embedded trellis-tiny): the
 * catalog, the usage charts' totals and points, and the playground streaming over graphql-ws (done, stopped, and an
 * upstream failure shown with the server's code).
 */
const SEEDED_OK = 3;
const SEEDED_ERRORS = 1;

let harness: DashboardHarness;

async function flushUsage() {
  await (harness.platform.subgraphs.get('inference')!.services as InferenceServices).usage.flush();
}

beforeAll(async () => {
  harness = await startDashboardHarness();
  const sdk = new OpenAI({ apiKey: harness.platform.adminKey, baseURL: `${harness.platform.url}/inference/v1`, maxRetries: 0, project: 'trellis/default' });
  const messages = [{ role: 'user' as const, content: 'Say hello to the dashboard.' }];
  await sdk.chat.completions.create({ model: 'trellis-tiny', messages, max_tokens: 16 });
  await sdk.chat.completions.create({ model: 'trellis-tiny', messages, max_tokens: 16 });
  const stream = await sdk.chat.completions.create({ model: 'trellis-tiny', messages, max_tokens: 16, stream: true });
  for await (const chunk of stream) void chunk;
  await expect(sdk.chat.completions.create({ model: 'no-such-model', messages })).rejects.toMatchObject({ status: 404 });
  await flushUsage();
}, 120_000);
afterAll(() => harness?.close());

const usage = () => harness.page.getByTestId('inference-usage');
const attribute = async (name: string) => Number(await usage().getAttribute(name));

describe('dashboard: Inference', () => {
  it('lists the catalog with backends and health, and charts the seeded usage per project and model', async () => {
    const { page } = harness;
    await harness.open('/');
    await harness.signIn();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Inference' }).click();
    await page.getByRole('heading', { level: 1, name: 'Inference' }).waitFor();

    const catalog = page.getByRole('table', { name: 'Models you may use' });
    const tiny = catalog.getByRole('row', { name: /trellis-tiny/ });
    await tiny.waitFor();
    expect(await tiny.textContent()).toMatch(/trellis-tiny\s*embedded.*trellis.*everyone.*in-process/);

    // Usage: the seeded requests in the last hour, one series per project and model, 60 one-minute buckets each.
    await usage().waitFor();
    expect(await attribute('data-requests')).toBe(SEEDED_OK + SEEDED_ERRORS);
    expect(await attribute('data-errors')).toBe(SEEDED_ERRORS);
    expect(await attribute('data-tokens')).toBeGreaterThan(0);
    const requestsChart = page.getByRole('figure', { name: 'Requests per minute' });
    expect(await requestsChart.getAttribute('data-series')).toBe('2');
    expect(await requestsChart.getAttribute('data-points')).toBe(String(2 * 60));
    expect(await requestsChart.getByRole('img').getAttribute('aria-label')).toContain('default · trellis-tiny, 60 points');
    const table = page.getByRole('table', { name: /Usage per project and model/ });
    expect(await table.getByRole('row', { name: /trellis-tiny/ }).textContent()).toMatch(new RegExp(`default\\s*trellis-tiny\\s*${SEEDED_OK}`));
    expect(await table.getByRole('row', { name: /no-such-model/ }).textContent()).toMatch(/default\s*no-such-model\s*1.*1$/);

    // The window selector re-asks the graph with other buckets (48 half hours), kept in the URL.
    await page.getByLabel('Window').selectOption('24h');
    await expect.poll(() => page.getByRole('figure', { name: 'Requests per 30 minutes' }).getAttribute('data-points')).toBe(String(2 * 48));
    expect(page.url()).toContain('window=24h');
    expect(await attribute('data-requests')).toBe(SEEDED_OK + SEEDED_ERRORS);
    // A project filter: one series per model.
    await page.getByLabel('Project', { exact: true }).selectOption('default');
    await expect.poll(() => page.getByRole('figure', { name: 'Tokens per 30 minutes' }).getAttribute('data-series')).toBe('2');
    await page.getByLabel('Window').selectOption('1h');

    await harness.checkAccessibility('inference');
    await page.getByRole('figure', { name: 'Requests per minute' }).waitFor();
    await harness.screenshot('inference');
  });

  it('streams a completion in the playground over chatCompletionChunks, chunk by chunk', async () => {
    const { page } = harness;
    const playground = page.getByTestId('inference-playground');
    await playground.scrollIntoViewIfNeeded();
    await page.getByLabel('Model', { exact: true }).selectOption('trellis-tiny');
    await page.getByLabel('Record usage in').selectOption('trellis/default');
    await page.getByLabel('Message', { exact: true }).fill('Tell me about the trellis in the garden.');
    await page.getByLabel('Max tokens').fill('48');
    await page.getByRole('button', { name: 'Send' }).click();
    const output = page.locator('section.playground-output');
    await expect.poll(() => output.getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
    const answer = (await page.getByTestId('playground-answer').textContent()) ?? '';
    expect(answer.trim().length).toBeGreaterThan(0);
    expect(await output.textContent()).toMatch(/\d+ prompt \+ \d+ completion tokens/);
    // It came over the subscription, one chunk per token or so, not in one piece.
    expect(Number(await output.getAttribute('data-chunks'))).toBeGreaterThan(2);
    expect(await output.textContent()).toMatch(/\d+ chunks · first token after/);
    await harness.checkAccessibility('inference playground');
    await harness.screenshot('inference-playground');

    // The playground's requests land in the default project's usage after a refresh.
    await flushUsage();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => attribute('data-requests')).toBeGreaterThanOrEqual(SEEDED_OK + SEEDED_ERRORS + 1);
    // No console or page errors.
    expect(harness.problems).toEqual([]);
  });

  it("shows an upstream failure with the server's code, and the deployment cooling down in the catalog", async () => {
    const { page, platform } = harness;
    const registered = await platform.graphql(
      `mutation { registerInferenceModel(definition: { id: "unreachable-chat", backend: OPENAI_COMPATIBLE,
         deployments: [{ baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-nothing-listens-here", timeoutMs: 2000 }] }) { id } }`,
    );
    expect(registered.body.errors).toBeUndefined();
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.getByRole('table', { name: 'Models you may use' }).getByRole('row', { name: /unreachable-chat/ });
    await row.waitFor();
    expect(await row.locator('[data-health]').getAttribute('data-health')).toBe('HEALTHY');

    await row.getByRole('button', { name: 'Try unreachable-chat in the playground' }).click();
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('unreachable-chat');
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe('playground-prompt');
    await page.keyboard.press('Control+Enter');
    const error = page.getByTestId('playground-error');
    await error.waitFor({ timeout: 30_000 });
    const text = (await error.textContent()) ?? '';
    expect(text).toMatch(/^[A-Z_]+: \S/);
    expect(text).not.toContain('sk-nothing-listens-here');
    expect(await page.locator('section.playground-output').getAttribute('data-status')).toBe('error');

    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => row.locator('[data-health]').getAttribute('data-health')).toBe('COOLING_DOWN');
    await row.locator('[data-health]').getByText('cooling down').waitFor();
    await harness.forgetProblems();
  });

  it('stops a request that is still waiting for its answer', async () => {
    const { page, platform } = harness;
    // An upstream that accepts connections and never answers: the request stays in flight until stopped.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const registered = await platform.graphql(
        `mutation($url: String!) { registerInferenceModel(definition: { id: "silent-chat", backend: OPENAI_COMPATIBLE,
           deployments: [{ baseUrl: $url, apiKey: "sk-silent", timeoutMs: 60000 }] }) { id } }`,
        { url: `http://127.0.0.1:${port}/v1` },
      );
      expect(registered.body.errors).toBeUndefined();
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByRole('table', { name: 'Models you may use' }).getByRole('row', { name: /silent-chat/ }).waitFor();
      await page.getByLabel('Model', { exact: true }).selectOption('silent-chat');
      await page.getByRole('button', { name: 'Send' }).click();
      const output = page.locator('section.playground-output');
      await expect.poll(() => output.getAttribute('data-status')).toBe('streaming');
      await expect.poll(() => sockets.size).toBeGreaterThan(0);
      expect(await page.getByLabel('Message', { exact: true }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Stop' }).click();
      await expect.poll(() => output.getAttribute('data-status')).toBe('stopped');
      expect(await page.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
    await harness.forgetProblems(); // the aborted request
  });

  it('shows a team member without usage the empty state, and deployments only to platform administrators', async () => {
    const { page, platform } = harness;
    const analyst = await platform.createUser('analyst', { lab: 'MEMBER' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await harness.signIn(analyst.key);
    await harness.open('/inference');
    const row = page.getByRole('table', { name: 'Models you may use' }).getByRole('row', { name: /silent-chat/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('shown to platform administrators');
    // Their default entity (a personal team) first; the other team is one choice away.
    expect(await page.getByLabel('Team').inputValue()).toBe('analyst');
    expect(await page.getByLabel('Team').locator('option').allTextContents()).toContain('lab');
    await page.getByText('No inference requests in the last hour.').waitFor();
    expect(await attribute('data-requests')).toBe(0);
    await harness.checkAccessibility('inference (member, no usage)');
    expect(harness.problems).toEqual([]);
  });
});
