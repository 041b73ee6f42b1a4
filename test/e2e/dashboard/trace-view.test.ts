import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import type { InferenceServices } from '../../../subgraphs/inference/services.js';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The trace view in a real browser: the waterfall beside the tree (bars placed and sized by time, click to select),
 * chat calls as conversations (OpenAI, Anthropic and plain messages, tool calls), tokens and cost from the price
 * table (also on Home and the Inference page), feedback chips that add and remove through the graph, "Open in
 * playground", and a layout that keeps names readable at 1024 px.
 */
const PROJECT = 'trellis/dash-trace-view';
const TRACE = 'trace-view-chat';
// Two hours ago (whole seconds): inside Home's 30-day cost window whenever the test runs.
const T0 = Math.floor(Date.now() / 1000) * 1000 - 2 * 3_600_000;
const SERVED_PROJECT = 'dash-trace-view-served';
const UNPRICED_PROJECT = 'trellis/dash-trace-view-unpriced';
const LONG_NAME = 'summarize_the_weather_report_for_the_user';

let harness: DashboardHarness;
let upstream: StandInUpstream;
/** The completion served through the catalog's priced model, and what the price table makes of it ($4 / $8 per million). */
let servedCost: number;

interface SeedCall {
  id: string;
  parent?: string;
  op: string;
  start: number;
  end: number;
  inputs?: Record<string, unknown>;
  output?: unknown;
  usage?: Record<string, Record<string, number>>;
}

const OPENAI_INPUTS = {
  model: 'gpt-4o-2024-08-06',
  messages: [
    { role: 'system', content: 'You are a weather bot.' },
    { role: 'user', content: 'What is the weather in Paris?' },
  ],
  temperature: 0.3,
  max_tokens: 200,
};
const OPENAI_OUTPUT = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gpt-4o-2024-08-06',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 },
};
const ANTHROPIC_INPUTS = {
  model: 'claude-3-5-sonnet-20241022',
  system: 'Answer in one sentence.',
  max_tokens: 256,
  messages: [
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '18°C and sunny' }] },
  ],
};
const ANTHROPIC_OUTPUT = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text: 'It is 18°C and sunny in Paris.' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 800, output_tokens: 200 },
};
const OPENAI_USAGE = { 'gpt-4o-2024-08-06': { requests: 1, prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 } };
const ANTHROPIC_USAGE = { 'claude-3-5-sonnet-20241022': { requests: 1, input_tokens: 800, output_tokens: 200 } };

// The shipped price table: gpt-4o $2.50 / $10 per million tokens, claude-3-5-sonnet $3 / $15.
const OPENAI_COST = (1200 * 2.5 + 300 * 10) / 1e6; // 0.006
const ANTHROPIC_COST = (800 * 3 + 200 * 15) / 1e6; // 0.0054

/** Weave's shape: the root's summary rolls its children's usage up. */
const CALLS: SeedCall[] = [
  { id: 'tv-root', op: 'weather_agent', start: 0, end: 1000, inputs: { question: 'What is the weather in Paris?' }, output: 'It is 18°C and sunny in Paris.', usage: { ...OPENAI_USAGE, ...ANTHROPIC_USAGE } },
  { id: 'tv-openai', parent: 'tv-root', op: 'openai.chat.completions.create', start: 100, end: 400, inputs: OPENAI_INPUTS, output: OPENAI_OUTPUT, usage: OPENAI_USAGE },
  { id: 'tv-tool', parent: 'tv-root', op: 'get_weather', start: 400, end: 450, inputs: { city: 'Paris' }, output: '18°C and sunny' },
  { id: 'tv-anthropic', parent: 'tv-root', op: 'anthropic.Messages.create', start: 450, end: 900, inputs: ANTHROPIC_INPUTS, output: ANTHROPIC_OUTPUT, usage: ANTHROPIC_USAGE },
  {
    id: 'tv-summary',
    parent: 'tv-root',
    op: LONG_NAME,
    start: 900,
    end: 990,
    inputs: { messages: [{ role: 'user', content: 'Summarize the report.' }] },
    output: { role: 'assistant', content: 'Sunny, 18°C.' },
  },
];

const at = (offset: number) => new Date(T0 + offset).toISOString();

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'priced', apiKey: 'sk-upstream' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-trace-view-'));
  const modelsFile = path.join(dir, 'models.json');
  await writeFile(
    modelsFile,
    JSON.stringify({
      models: [
        {
          id: 'priced-chat',
          backend: 'openai-compatible',
          deployments: [{ base_url: upstream.baseUrl, api_key: 'sk-upstream' }],
          pricing: { input_per_million: 4, output_per_million: 8 },
        },
      ],
    }),
  );
  harness = await startDashboardHarness({ env: { TRELLIS_MODELS_FILE: modelsFile } });
  const batch = CALLS.flatMap((call) => [
    {
      mode: 'start',
      req: { start: { project_id: PROJECT, id: call.id, trace_id: TRACE, parent_id: call.parent ?? null, op_name: call.op, started_at: at(call.start), inputs: call.inputs ?? {}, attributes: {} } },
    },
    { mode: 'end', req: { end: { project_id: PROJECT, id: call.id, ended_at: at(call.end), output: call.output ?? null, summary: call.usage ? { usage: call.usage } : {} } } },
  ]);
  await harness.postJson('/traces/call/upsert_batch', { batch });
  // A trace (in a project of its own) whose model has no price: its cost is unknown, not $0.
  await harness.postJson('/traces/call/upsert_batch', {
    batch: [
      { mode: 'start', req: { start: { project_id: UNPRICED_PROJECT, id: 'tv-unpriced', trace_id: 'trace-view-unpriced', op_name: 'finetune_chat', started_at: at(2000), inputs: {}, attributes: {} } } },
      { mode: 'end', req: { end: { project_id: UNPRICED_PROJECT, id: 'tv-unpriced', ended_at: at(2100), output: null, summary: { usage: { 'my-finetune': { prompt_tokens: 50, completion_tokens: 5 } } } } } },
    ],
  });
  // A scorer's feedback from the SDK: shown as a chip, never as raw JSON.
  await harness.postJson('/traces/feedback/create', {
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/tv-root`,
    feedback_type: 'wandb.runnable.Correctness',
    payload: { output: { correct: true } },
    runnable_ref: `weave:///${PROJECT}/object/Correctness:v1`,
  });
  // An inference completion for a project: a usage record (Inference page) and a traced call.
  await harness.platform.graphql(`mutation { ensureProject(entity: "trellis", name: "${SERVED_PROJECT}") { name } }`);
  const openai = new OpenAI({ apiKey: harness.platform.adminKey, baseURL: `${harness.platform.url}/inference/v1`, project: `trellis/${SERVED_PROJECT}`, maxRetries: 0 });
  const completion = await openai.chat.completions.create({ model: 'priced-chat', messages: [{ role: 'user', content: 'How much does this cost?' }] });
  servedCost = (completion.usage!.prompt_tokens * 4 + completion.usage!.completion_tokens * 8) / 1e6;
  await (harness.platform.subgraphs.get('inference')!.services as InferenceServices).usage.flush();
  await harness.signIn();
}, 180_000);
afterAll(async () => {
  await harness?.close();
  await upstream?.close();
});

const openTrace = async (traceId = TRACE, call?: string, project = PROJECT) => {
  await harness.open(`/traces/${project}/${traceId}${call ? `?call=${call}` : ''}`);
  await harness.page.getByTestId('call-tree').waitFor();
};
const row = (id: string) => harness.page.locator(`[role="treeitem"][data-call-id="${id}"]`);
const bar = (id: string) => harness.page.locator(`[data-testid="timeline-bar"][data-call-id="${id}"]`);

describe('dashboard: the trace view', () => {
  it('draws each call as a bar on the trace’s time axis, nested and ordered by start, and selects a call from its bar', async () => {
    const { page } = harness;
    await openTrace();
    await expect.poll(() => page.getByTestId('timeline-bar').count()).toBe(CALLS.length);
    // Nesting: the children are one level below the root, in the order they started.
    expect(await row('tv-root').getAttribute('aria-level')).toBe('1');
    const childIds = await page.locator('[role="group"] [role="treeitem"]').evaluateAll((items) => items.map((item) => item.getAttribute('data-call-id')));
    expect(childIds).toEqual(['tv-openai', 'tv-tool', 'tv-anthropic', 'tv-summary']);

    // Each bar starts at (start − trace start) / trace duration of its track and is duration / trace duration wide.
    for (const call of CALLS) {
      const track = (await bar(call.id).locator('xpath=..').boundingBox())!;
      const box = (await bar(call.id).boundingBox())!;
      const inner = track.width - 2; // the track's 1 px borders
      expect(box.x - (track.x + 1), `${call.id} start`).toBeCloseTo((call.start / 1000) * inner, -0.3);
      expect(box.width, `${call.id} width`).toBeCloseTo(Math.max(((call.end - call.start) / 1000) * inner, 2), -0.3);
    }
    // Every bar shares one axis: the tracks line up whatever the nesting.
    const tracks = await page.locator('.timeline-track').evaluateAll((items) => items.map((item) => Math.round(item.getBoundingClientRect().left)));
    expect(new Set(tracks).size).toBe(1);

    await bar('tv-anthropic').click();
    await expect.poll(() => row('tv-anthropic').getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => page.getByTestId('call-detail').getAttribute('data-call-id')).toBe('tv-anthropic');
    expect(page.url()).toContain('call=tv-anthropic');
    // The call ran for the admin (the key that recorded it): shown by name, not as an id.
    expect(await page.getByTestId('call-user').textContent()).toBe('admin');
  });

  it('shows chat calls as conversations: OpenAI messages with a tool call, Anthropic blocks with tool use and result, plain messages; raw JSON on demand', async () => {
    const { page } = harness;
    await openTrace(TRACE, 'tv-openai');
    const chat = page.getByTestId('chat-view');
    await chat.waitFor();
    const roles = () => chat.locator('.chat-turn').evaluateAll((turns) => turns.map((turn) => turn.getAttribute('data-role')));
    expect(await roles()).toEqual(['system', 'user', 'assistant']);
    await expect.poll(() => chat.textContent()).toContain('You are a weather bot.');
    const toolCall = chat.getByTestId('chat-tool-call');
    expect(await toolCall.textContent()).toContain('get_weather');
    expect(await toolCall.textContent()).toContain('"city": "Paris"');

    await row('tv-anthropic').click();
    await expect.poll(() => page.getByTestId('call-detail').getAttribute('data-call-id')).toBe('tv-anthropic');
    await expect.poll(roles).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    expect(await chat.textContent()).toContain('Answer in one sentence.');
    expect(await chat.getByTestId('chat-tool-call').textContent()).toContain('get_weather');
    expect(await chat.getByTestId('chat-tool-result').textContent()).toContain('18°C and sunny');
    expect(await chat.locator('.chat-answer').textContent()).toContain('It is 18°C and sunny in Paris.');
    // Raw JSON: the request as recorded.
    await chat.getByRole('button', { name: 'Raw JSON' }).click();
    await expect.poll(() => chat.getByTestId('json-viewer').first().textContent()).toContain('tool_use');
    await chat.getByRole('button', { name: 'Raw JSON' }).click();

    await row('tv-summary').click();
    await expect.poll(roles).toEqual(['user', 'assistant']);
    expect(await chat.textContent()).toContain('Sunny, 18°C.');
  });

  it('shows tokens and cost per call and for the trace, as the price table computes them; an unpriced model costs "—"', async () => {
    const { page } = harness;
    await openTrace(TRACE, 'tv-openai');
    const traceCost = page.getByLabel('Tokens and cost of the trace').locator('.usage-cost');
    await expect.poll(() => traceCost.getAttribute('data-cost')).not.toBe(null);
    expect(Number(await traceCost.getAttribute('data-cost'))).toBeCloseTo(OPENAI_COST + ANTHROPIC_COST, 12);
    expect(await traceCost.textContent()).toBe('$0.0114');
    expect(await page.getByLabel('Tokens and cost of the trace').locator('.usage-tokens').textContent()).toBe('2,500 tokens');

    const callCost = page.getByLabel('Tokens and cost of this call').locator('.usage-cost');
    await expect.poll(() => callCost.getAttribute('data-cost')).toBe(String(OPENAI_COST));
    expect(await callCost.textContent()).toBe('$0.006');
    expect(await page.getByTestId('call-model-usage').textContent()).toContain('1,200 in · 300 out · $0.006');

    await row('tv-anthropic').click();
    await expect.poll(async () => Number(await callCost.getAttribute('data-cost'))).toBeCloseTo(ANTHROPIC_COST, 12);
    expect(await callCost.textContent()).toBe('$0.0054');

    await openTrace('trace-view-unpriced', undefined, UNPRICED_PROJECT);
    const unpriced = page.getByLabel('Tokens and cost of the trace').locator('.usage-cost');
    await expect.poll(() => unpriced.textContent()).toBe('—');
    expect(await unpriced.getAttribute('title')).toContain('No price for this model');
  });

  it('shows cost on Home (per project, 30 days) and on the Inference page (per model, from usage records)', async () => {
    const { page } = harness;
    await harness.open('/');
    const projectRow = page.getByRole('table', { name: 'Projects of team trellis' }).getByRole('row', { name: /dash-trace-view / });
    const cost = projectRow.locator('[data-cost]');
    await expect.poll(() => cost.textContent()).toBe('$0.0114');
    expect(Number(await cost.getAttribute('data-cost'))).toBeCloseTo(OPENAI_COST + ANTHROPIC_COST, 12);
    // A project whose calls used a model without a price has no cost; the total says it leaves such projects out.
    const unpricedRow = page.getByRole('table', { name: 'Projects of team trellis' }).getByRole('row', { name: /dash-trace-view-unpriced / });
    expect(await unpricedRow.locator('[data-cost]').textContent()).toBe('—');
    const total = page.getByTestId('home-cost');
    expect(Number(await total.getAttribute('data-cost'))).toBeGreaterThanOrEqual(OPENAI_COST + ANTHROPIC_COST - 1e-12);
    expect(await total.getAttribute('title')).toBe('Without 1 project whose models have no price');
    expect(await total.textContent()).toMatch(/^\$[0-9.]+\+ in 30 days$/);

    await harness.open(`/inference?team=trellis&project=${SERVED_PROJECT}`);
    const usage = page.getByTestId('inference-usage');
    await expect.poll(async () => Number(await usage.getAttribute('data-cost'))).toBeCloseTo(servedCost, 12);
    const row = usage.getByRole('table', { name: /^Usage per model/ }).getByRole('row', { name: /priced-chat/ });
    expect(await row.textContent()).toContain(`$${new Intl.NumberFormat('en', { maximumSignificantDigits: 3 }).format(servedCost)}`);
  });

  it('opens a traced chat call in the playground with its messages and parameters', async () => {
    const { page } = harness;
    await openTrace(TRACE, 'tv-openai');
    await page.getByRole('button', { name: 'Open in playground' }).click();
    await page.waitForURL(/\/ui\/inference#playground$/);
    await expect.poll(() => page.getByLabel('System message (optional)').inputValue()).toBe('You are a weather bot.');
    const transcript = page.getByRole('list', { name: 'Conversation so far' });
    expect(await transcript.getByRole('listitem').allTextContents()).toEqual(['UserWhat is the weather in Paris?']);
    expect(await page.getByLabel('Max tokens').inputValue()).toBe('200');
    expect(await page.getByLabel('Temperature').inputValue()).toBe('0.3');
  });

  it('shows feedback as chips and adds and removes a reaction and a note through the graph (they persist)', async () => {
    const { page } = harness;
    await openTrace(TRACE, 'tv-root');
    const chips = page.getByTestId('feedback-chips');
    await chips.getByText('Correctness').waitFor();
    expect(await chips.textContent()).toContain('correct: true');
    expect(await page.getByTestId('call-detail').textContent()).not.toContain('__typename');

    await chips.getByRole('button', { name: '+ React' }).click();
    await chips.getByRole('button', { name: 'React 👍' }).click();
    const thumbs = chips.getByRole('button', { name: /^👍 1, yours/ });
    await thumbs.waitFor();
    expect(await thumbs.getAttribute('aria-pressed')).toBe('true');
    await chips.getByLabel('Add a note').fill('Checked against the forecast');
    await chips.getByRole('button', { name: 'Add note' }).click();
    await chips.getByText('Checked against the forecast').waitFor();

    await page.reload();
    await thumbs.waitFor();
    await chips.getByText('Checked against the forecast').waitFor();
    await thumbs.click();
    await expect.poll(() => chips.getByRole('button', { name: /^👍/ }).count()).toBe(0);
    await chips.getByRole('button', { name: 'Remove note “Checked against the forecast”' }).click();
    await expect.poll(() => chips.getByText('Checked against the forecast').count()).toBe(0);

    await page.reload();
    await chips.getByText('Correctness').waitFor();
    expect(await chips.getByRole('button', { name: /^👍/ }).count()).toBe(0);
    expect(await chips.getByText('Checked against the forecast').count()).toBe(0);
    expect(harness.problems).toEqual([]);
  });

  it('keeps names readable at 1024 px (the tree takes the width; long names end in an ellipsis with the full name in a title), axe clean in light and dark', async () => {
    const { page } = harness;
    await page.setViewportSize({ width: 1024, height: 800 });
    try {
      await openTrace(TRACE, 'tv-anthropic');
      await page.getByTestId('chat-view').waitFor();
      const label = row('tv-summary').locator('.tree-label');
      expect(await label.textContent()).toBe(LONG_NAME);
      // Not cut: the whole name fits its box.
      const fits = await label.evaluate((element) => element.scrollWidth <= element.clientWidth);
      expect(fits).toBe(true);
      expect(await label.getAttribute('title')).toBe(LONG_NAME);
      expect((await page.getByTestId('trace-tree-panel').boundingBox())!.width).toBeGreaterThan(700);
      await harness.checkAccessibility('trace view at 1024 px');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    await openTrace(TRACE, 'tv-anthropic');
    await page.getByTestId('chat-view').waitFor();
    await expect.poll(() => page.getByTestId('timeline-bar').count()).toBe(CALLS.length);
    await harness.checkAccessibility('trace view');
    // Dark mode (the system setting): the same page, every colour from the variables.
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await harness.checkAccessibility('trace view, dark');
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
    await harness.screenshot('trace');
  });
});
