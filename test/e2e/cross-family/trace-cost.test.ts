import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import type { InferenceServices } from '../../../subgraphs/inference/services.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

/**
 * Cost through the gateway: tracing counts the tokens of summary.usage (per call, per trace, per window) and the
 * inference subgraph prices them (the shipped table, TRELLIS_MODEL_PRICES_FILE, a catalog model's pricing) through
 * the TokenUsage / ModelTokenUsage entities; inference usage records are priced too.
 */
let platform: TestPlatform;
let upstream: StandInUpstream;
const PROJECT = 'trellis/costs';
const perMillion = (tokens: number, price: number) => (tokens * price) / 1e6;

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'priced', apiKey: 'sk-upstream' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-cost-'));
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
  const pricesFile = path.join(dir, 'prices.json');
  await writeFile(pricesFile, JSON.stringify({ prices: { 'gpt-4o-mini': { input_per_million: 0.2, output_per_million: 0.5 } } }));
  platform = await startTestPlatform({ env: { TRELLIS_MODELS_FILE: modelsFile, TRELLIS_MODEL_PRICES_FILE: pricesFile } });
  await platform.graphql('mutation { ensureProject(entity: "trellis", name: "costs") { name } }');
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await upstream?.close();
});

async function post(route: string, body: unknown): Promise<void> {
  const response = await platform.fetch(route, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}` },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

const at = (second: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, second)).toISOString();
interface TracedCall {
  id: string;
  parent?: string;
  start: number;
  end?: number;
  usage?: Record<string, Record<string, number>>;
}
/** A trace as the Weave SDKs send it: starts, then ends whose summary.usage is rolled up into the parents. */
async function recordTrace(traceId: string, calls: TracedCall[]): Promise<void> {
  const batch = calls.flatMap((call) => [
    {
      mode: 'start',
      req: { start: { project_id: PROJECT, id: call.id, trace_id: traceId, parent_id: call.parent ?? null, op_name: `op-${call.id}`, started_at: at(call.start), attributes: {}, inputs: {} } },
    },
    ...(call.end === undefined
      ? []
      : [{ mode: 'end', req: { end: { project_id: PROJECT, id: call.id, ended_at: at(call.end), output: null, summary: call.usage ? { usage: call.usage } : {} } } }]),
  ]);
  await post('/traces/call/upsert_batch', { batch });
}

const USAGE = `byModel { model inputTokens outputTokens totalTokens cost price { inputPerMillion outputPerMillion source } } inputTokens outputTokens totalTokens cost`;

async function query(document: string, variables: Record<string, unknown> = {}) {
  const { body } = await platform.graphql(document, variables);
  expect(body.errors).toBeUndefined();
  return body.data;
}

describe('cost of traced calls', () => {
  beforeAll(async () => {
    // OpenAI's and Anthropic's names for the counts, each completion in a child, the root holding their sum (Weave's roll-up).
    await recordTrace('trace-chat', [
      {
        id: 'root',
        start: 0,
        end: 10,
        usage: {
          'gpt-4o-2024-08-06': { requests: 1, prompt_tokens: 1_000, completion_tokens: 500, total_tokens: 1_500 },
          'claude-3-5-sonnet-20241022': { requests: 1, input_tokens: 2_000, output_tokens: 100 },
        },
      },
      { id: 'openai', parent: 'root', start: 1, end: 4, usage: { 'gpt-4o-2024-08-06': { requests: 1, prompt_tokens: 1_000, completion_tokens: 500, total_tokens: 1_500 } } },
      { id: 'anthropic', parent: 'root', start: 5, end: 9, usage: { 'claude-3-5-sonnet-20241022': { requests: 1, input_tokens: 2_000, output_tokens: 100 } } },
      { id: 'tool', parent: 'root', start: 4, end: 5 },
    ]);
  });

  it('prices each call from its summary.usage at the shipped list prices (OpenAI and Anthropic token names)', async () => {
    const data = await query(`query { project(entity: "trellis", name: "costs") {
      openai: call(id: "openai") { usage { ${USAGE} } }
      anthropic: call(id: "anthropic") { usage { ${USAGE} } }
      tool: call(id: "tool") { usage { ${USAGE} } } } }`);
    const gpt4o = perMillion(1_000, 2.5) + perMillion(500, 10);
    expect(data.project.openai.usage).toMatchObject({ inputTokens: 1_000, outputTokens: 500, totalTokens: 1_500 });
    expect(data.project.openai.usage.cost).toBeCloseTo(gpt4o, 12);
    expect(data.project.openai.usage.byModel).toEqual([
      {
        model: 'gpt-4o-2024-08-06',
        inputTokens: 1_000,
        outputTokens: 500,
        totalTokens: 1_500,
        cost: expect.closeTo(gpt4o, 12),
        price: { inputPerMillion: 2.5, outputPerMillion: 10, source: 'default' },
      },
    ]);
    expect(data.project.anthropic.usage.cost).toBeCloseTo(perMillion(2_000, 3) + perMillion(100, 15), 12);
    expect(data.project.tool.usage).toEqual({ byModel: [], inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 });
  });

  it("totals a trace counting each completion once (the root's roll-up is not added to its children)", async () => {
    const data = await query(`query { project(entity: "trellis", name: "costs") { traceUsage(traceId: "trace-chat") { ${USAGE} } } }`);
    const expected = perMillion(1_000, 2.5) + perMillion(500, 10) + perMillion(2_000, 3) + perMillion(100, 15);
    expect(data.project.traceUsage).toMatchObject({ inputTokens: 3_000, outputTokens: 600, totalTokens: 3_600 });
    expect(data.project.traceUsage.cost).toBeCloseTo(expected, 12);
    expect(data.project.traceUsage.byModel.map((entry: any) => entry.model)).toEqual(['claude-3-5-sonnet-20241022', 'gpt-4o-2024-08-06']);
  });

  it('counts the children of a root that still runs, and prices a model from TRELLIS_MODEL_PRICES_FILE', async () => {
    await recordTrace('trace-running', [
      { id: 'running-root', start: 20 },
      { id: 'mini-1', parent: 'running-root', start: 21, end: 22, usage: { 'gpt-4o-mini': { prompt_tokens: 10_000, completion_tokens: 2_000 } } },
      { id: 'mini-2', parent: 'running-root', start: 22, end: 23, usage: { 'gpt-4o-mini': { prompt_tokens: 30_000, completion_tokens: 6_000 } } },
    ]);
    const data = await query(`query { project(entity: "trellis", name: "costs") { traceUsage(traceId: "trace-running") { ${USAGE} } } }`);
    expect(data.project.traceUsage).toMatchObject({ inputTokens: 40_000, outputTokens: 8_000 });
    expect(data.project.traceUsage.byModel[0].price).toEqual({ inputPerMillion: 0.2, outputPerMillion: 0.5, source: 'file' });
    expect(data.project.traceUsage.cost).toBeCloseTo(perMillion(40_000, 0.2) + perMillion(8_000, 0.5), 12);
  });

  it('has no cost (null, not 0) for a model without a price, and no total cost for a trace that used one', async () => {
    await recordTrace('trace-unknown', [
      { id: 'unknown-root', start: 30, end: 33, usage: { 'my-finetune': { prompt_tokens: 100, completion_tokens: 10 }, 'gpt-4o': { prompt_tokens: 100, completion_tokens: 0 } } },
    ]);
    const data = await query(`query { project(entity: "trellis", name: "costs") { traceUsage(traceId: "trace-unknown") { ${USAGE} } } }`);
    expect(data.project.traceUsage.cost).toBeNull();
    const byModel = Object.fromEntries(data.project.traceUsage.byModel.map((entry: any) => [entry.model, entry]));
    expect(byModel['my-finetune']).toMatchObject({ cost: null, price: null, inputTokens: 100 });
    expect(byModel['gpt-4o'].cost).toBeCloseTo(perMillion(100, 2.5), 12);
  });

  it('totals a window of the project and refuses a window that ends before it starts', async () => {
    const window = await query(
      `query($from: DateTimeISO, $to: DateTimeISO) { project(entity: "trellis", name: "costs") { tokenUsage(from: $from, to: $to) { ${USAGE} } } }`,
      { from: at(0), to: at(25) },
    );
    // trace-chat and trace-running started within it; trace-unknown (at 30 s) did not.
    const expected = perMillion(1_000, 2.5) + perMillion(500, 10) + perMillion(2_000, 3) + perMillion(100, 15) + perMillion(40_000, 0.2) + perMillion(8_000, 0.5);
    expect(window.project.tokenUsage).toMatchObject({ inputTokens: 43_000, outputTokens: 8_600 });
    expect(window.project.tokenUsage.cost).toBeCloseTo(expected, 12);

    const { body } = await platform.graphql(`query { project(entity: "trellis", name: "costs") { tokenUsage(from: "${at(25)}", to: "${at(0)}") { cost } } }`);
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['from'] });
  });

  it('lets only members of the team read token usage', async () => {
    const outsider = await platform.createUser('cost-outsider');
    const { body } = await platform.graphql(`query { project(entity: "trellis", name: "costs") { traceUsage(traceId: "trace-chat") { cost } } }`, {}, outsider.key);
    expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('cost of inference usage', () => {
  it("prices a catalog model's completions at its own pricing, in usage records, buckets and the traced call", async () => {
    await platform.graphql('mutation { ensureProject(entity: "trellis", name: "served") { name } }');
    const openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, project: 'trellis/served', maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: 'priced-chat', messages: [{ role: 'user', content: 'what does this cost?' }] });
    await (platform.subgraphs.get('inference')!.services as InferenceServices).usage.flush();
    const expected = perMillion(completion.usage!.prompt_tokens, 4) + perMillion(completion.usage!.completion_tokens, 8);

    const data = await query(`query { project(entity: "trellis", name: "served") {
      total: inferenceUsage { requests cost }
      byModel: inferenceUsage(groupBy: [MODEL]) { model cost }
      inferenceUsageRecords(first: 5) { nodes { model cost } } } }`);
    expect(data.project.total[0].cost).toBeCloseTo(expected, 12);
    expect(data.project.byModel).toEqual([{ model: 'priced-chat', cost: expect.closeTo(expected, 12) }]);
    expect(data.project.inferenceUsageRecords.nodes).toEqual([{ model: 'priced-chat', cost: expect.closeTo(expected, 12) }]);

    // The completion is traced into Family A; its call is priced by the same table.
    const deadline = Date.now() + 10_000;
    let traced: any[] = [];
    while (traced.length === 0 && Date.now() < deadline) {
      traced = (await query(`query { project(entity: "trellis", name: "served") { calls(first: 5) { nodes { usage { cost byModel { price { source } } } } } } }`)).project.calls.nodes;
      if (traced.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(traced).toHaveLength(1);
    expect(traced[0].usage.cost).toBeCloseTo(expected, 12);
    expect(traced[0].usage.byModel[0].price.source).toBe('catalog');
  });
});
