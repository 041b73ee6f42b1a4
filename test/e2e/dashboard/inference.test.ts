import { createServer, type AddressInfo, type Socket } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
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

    // Latency as p50 and p99 per project and model. Every request fell in one minute: that lone bucket is drawn (it
    // was an empty chart), and the axis spans the whole hour of the window, not that minute.
    const latency = page.getByRole('figure', { name: 'Latency per minute (p50, p99 dashed)' });
    await expect.poll(() => latency.getAttribute('data-series')).toBe('4');
    expect(await latency.getByRole('img').getAttribute('aria-label')).toContain('trellis-tiny p99, 1 points');
    await expect.poll(() => latency.getAttribute('data-x-max')).not.toBeNull();
    expect(Number(await latency.getAttribute('data-x-max')) - Number(await latency.getAttribute('data-x-min'))).toBe(60 * 60_000);
    const painted = (await page.evaluate(`(() => {
      const figure = [...document.querySelectorAll('[data-testid="time-series-chart"]')].find((item) => item.textContent.startsWith('Latency per minute'));
      const canvas = figure.querySelector('canvas');
      const [r, g, b] = figure.getAttribute('data-colors').split(' ')[0].match(/[0-9a-f]{2}/gi).map((hex) => parseInt(hex, 16));
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i] - r) < 12 && Math.abs(data[i + 1] - g) < 12 && Math.abs(data[i + 2] - b) < 12 && data[i + 3] > 200) count++;
      return count;
    })()`)) as number;
    expect(painted).toBeGreaterThan(10);

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
    await page.keyboard.type('Are you there?');
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
      await page.getByLabel('Message', { exact: true }).fill('Anyone?');
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

  it('continues a conversation turn by turn with the chosen parameters, and compares two models side by side', async () => {
    const { page, platform } = harness;
    // A stand-in upstream records what the playground sends (the embedded model cannot be asked what it received).
    const upstream: StandInUpstream = await startStandInUpstream({ name: 'recorder' });
    try {
      const registered = await platform.graphql(
        `mutation($url: String!) { registerInferenceModel(definition: { id: "recorder-chat", backend: OPENAI_COMPATIBLE, deployments: [{ baseUrl: $url, apiKey: "sk-recorder" }] }) { id } }`,
        { url: upstream.baseUrl },
      );
      expect(registered.body.errors).toBeUndefined();
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByRole('table', { name: 'Models you may use' }).getByRole('row', { name: /recorder-chat/ }).waitFor();
      await page.getByRole('button', { name: 'Clear conversation' }).click().catch(() => undefined);
      await page.getByLabel('Model', { exact: true }).selectOption('recorder-chat');
      await page.getByLabel('Max tokens').fill('32');
      await page.getByLabel('Top p').fill('0.9');
      await page.getByLabel('Seed').fill('7');
      await page.getByLabel('Stop sequences (one per line)').fill('END');
      await page.getByLabel('System message (optional)').fill('Be brief.');
      const output = page.locator('section.playground-output');

      await page.getByLabel('Message', { exact: true }).fill('First question?');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => output.getAttribute('data-status')).toBe('done');
      await page.getByLabel('Message', { exact: true }).fill('And a second one?');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => upstream.requests.length).toBe(2);
      await expect.poll(() => output.getAttribute('data-status')).toBe('done');

      // The second request carried the whole conversation, the first answer included, and the parameters.
      const second = upstream.requests[1]!.body;
      expect(second.messages.map((message: { role: string; content: string }) => [message.role, message.content])).toEqual([
        ['system', 'Be brief.'],
        ['user', 'First question?'],
        ['assistant', 'Hello from the stand-in upstream.'],
        ['user', 'And a second one?'],
      ]);
      expect(second).toMatchObject({ top_p: 0.9, seed: 7, stop: ['END'], max_tokens: 32 });
      // The page shows the conversation so far above the latest answer.
      const transcript = page.getByRole('list', { name: 'Conversation so far' });
      expect(await transcript.getByRole('listitem').allTextContents()).toEqual(['UserFirst question?', 'AssistantHello from the stand-in upstream.', 'UserAnd a second one?']);
      expect(await page.getByTestId('playground-answer').textContent()).toBe('Hello from the stand-in upstream.');

      // Side by side: the recorder against a training model's step 0 (its base model, served by the training family).
      const created = await platform.fetch('/training/v1/preview/models', {
        method: 'POST',
        headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ entity: 'trellis', project: 'default', name: 'playground-model', base_model: 'trellis-tiny' }),
      });
      expect(created.status).toBe(200);
      await page.getByRole('button', { name: 'Refresh' }).click(); // lists the new model's checkpoints
      await page.getByRole('button', { name: 'Clear conversation' }).click();
      await page.getByLabel('Record usage in').selectOption('trellis/default');
      await page.getByLabel('Compare with a second model').check();
      const stepZero = 'wandb-artifact:///trellis/default/playground-model:step0';
      await expect.poll(() => page.getByRole('combobox', { name: 'Model B' }).locator(`option[value="${stepZero}"]`).count()).toBe(1);
      await page.getByRole('combobox', { name: 'Model B' }).selectOption(stepZero);
      await page.getByLabel('Max tokens').fill('12');
      await page.getByLabel('Top p').fill('');
      await page.getByLabel('Stop sequences (one per line)').fill('');
      await page.getByLabel('Message', { exact: true }).fill('Tell me about the garden.');
      await page.getByRole('button', { name: 'Send' }).click();
      const sideA = page.locator('section.playground-output[data-side="A"]');
      const sideB = page.locator('section.playground-output[data-side="B"]');
      await expect.poll(() => sideA.getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
      await expect.poll(() => sideB.getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
      expect(await page.getByTestId('playground-answer').textContent()).toBe('Hello from the stand-in upstream.');
      expect(((await page.getByTestId('playground-answer-b').textContent()) ?? '').trim().length).toBeGreaterThan(0);
      expect(await sideB.textContent()).toContain(stepZero);
      expect(upstream.requests[2]!.body).not.toHaveProperty('top_p');
      // Both sides sit next to each other.
      const [boxA, boxB] = [await sideA.boundingBox(), await sideB.boundingBox()];
      expect(boxB!.x).toBeGreaterThanOrEqual(boxA!.x + boxA!.width);
      expect(Math.abs(boxB!.y - boxA!.y)).toBeLessThan(2);
      await harness.checkAccessibility('playground comparing two models');
      await sideA.scrollIntoViewIfNeeded();
      await harness.screenshot('inference-playground-compare');
      await page.getByLabel('Compare with a second model').uncheck();
    } finally {
      await upstream.close();
    }
  });

  it('continues a conversation another page handed over ("Open in playground")', async () => {
    const { page } = harness;
    const draft = {
      model: 'trellis-tiny',
      system: 'You are a gardener.',
      messages: [
        { role: 'USER', content: 'Which plants climb a trellis?' },
        { role: 'ASSISTANT', content: 'Roses, clematis and beans.' },
        { role: 'USER', content: 'And in the shade?' },
      ],
      parameters: { maxTokens: 8, temperature: 0 },
    };
    await page.evaluate(`sessionStorage.setItem('trellis.dashboard.playgroundDraft', ${JSON.stringify(JSON.stringify(draft))})`);
    await harness.open('/inference#playground');
    const transcript = page.getByRole('list', { name: 'Conversation so far' });
    await transcript.waitFor();
    expect(await transcript.getByRole('listitem').allTextContents()).toEqual(['UserWhich plants climb a trellis?', 'AssistantRoses, clematis and beans.', 'UserAnd in the shade?']);
    expect(await page.getByLabel('System message (optional)').inputValue()).toBe('You are a gardener.');
    expect(await page.getByLabel('Max tokens').inputValue()).toBe('8');
    // The conversation ends with the user's turn: Send runs it as it is.
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('section.playground-output').getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
    // Taken once: a reload starts empty.
    expect(await page.evaluate(`sessionStorage.getItem('trellis.dashboard.playgroundDraft')`)).toBeNull();
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
