import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import { SUBGRAPHS } from '../../index.js';
import { defineInferenceSubgraph } from '../index.js';
import type { InferenceServices } from '../services.js';
import type { CompletionTrace } from '../tracing/completion-trace.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * Completions of requests that name a project are handed to the trace sink as Family A calls (op_name naming the
 * model, inputs = the request, output = the choice, summary.usage = token counts), unless the project switched
 * it off. The sink here keeps what it receives and checks it is called inside a database transaction, as the
 * platform's event outbox needs.
 */
const received: CompletionTrace[] = [];
let platform: TestPlatform;
let upstream: StandInUpstream;
let failing: StandInUpstream;

const sdk = (project?: string, apiKey = ADMIN_KEY) =>
  new OpenAI({ apiKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: project ?? null });

async function flushed(): Promise<CompletionTrace[]> {
  await (platform.subgraphs.get('inference')!.services as InferenceServices).usage.flush();
  return received.splice(0);
}

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'traced' });
  failing = await startStandInUpstream({ name: 'failing', mode: 'fail-500' });
  const inference = defineInferenceSubgraph({
    traceSink: async (_db, traces) => {
      received.push(...traces);
    },
  });
  platform = await startTestPlatform({ subgraphs: SUBGRAPHS.map((module) => (module.name === 'inference' ? inference : module)) });
  for (const [id, url] of [['traced-model', upstream.baseUrl], ['broken-model', failing.baseUrl]] as const) {
    const { body } = await platform.graphql('mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id } }', {
      d: { id, backend: 'OPENAI_COMPATIBLE', deployments: [{ baseUrl: url }] },
    });
    expect(body.errors).toBeUndefined();
  }
});

afterAll(async () => {
  await platform?.close();
  await upstream?.close();
  await failing?.close();
});

describe('completions recorded as Family A calls', () => {
  it('records a plain completion of a named project', async () => {
    await sdk('trellis/traced').chat.completions.create({
      model: 'traced-model',
      messages: [{ role: 'user', content: 'hello there' }],
      temperature: 0.3,
    });
    const traces = await flushed();
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({
      entity: 'trellis',
      project: 'traced',
      author: 'admin',
      call: {
        op_name: 'inference.chat.completions/traced-model',
        inputs: { model: 'traced-model', messages: [{ role: 'user', content: 'hello there' }], temperature: 0.3 },
        output: { index: 0, message: { role: 'assistant', content: 'Hello from the stand-in upstream.' }, finish_reason: 'stop' },
        summary: { usage: { 'traced-model': { requests: 1, prompt_tokens: 2, completion_tokens: 6, total_tokens: 8 } } },
        exception: null,
      },
    });
    expect(Date.parse(traces[0]!.call.ended_at)).toBeGreaterThanOrEqual(Date.parse(traces[0]!.call.started_at));
  });

  it('assembles the output of a streamed completion from its chunks', async () => {
    const stream = await sdk('trellis/traced').chat.completions.create({
      model: 'traced-model',
      messages: [{ role: 'user', content: 'stream' }],
      stream: true,
    });
    for await (const _chunk of stream) {
      // drain
    }
    const [trace] = await flushed();
    expect(trace!.call.output).toEqual({ index: 0, message: { role: 'assistant', content: 'Hello from the stand-in upstream.' }, finish_reason: 'stop' });
    expect(trace!.call.summary.usage['traced-model']).toMatchObject({ completion_tokens: 6 });
    expect(trace!.call.attributes).toMatchObject({ trellis: { stream: true } });
  });

  it('records a Responses API request as the chat completion it runs, plain and streamed', async () => {
    await sdk('trellis/traced').responses.create({ model: 'traced-model', instructions: 'Be brief.', input: 'hello there', temperature: 0.3 });
    const stream = await sdk('trellis/traced').responses.create({ model: 'traced-model', input: [{ role: 'developer', content: 'stream' }], stream: true });
    for await (const _event of stream) {
      // drain
    }
    const traces = await flushed();
    expect(traces.map((trace) => trace.call)).toMatchObject([
      {
        op_name: 'inference.chat.completions/traced-model',
        inputs: { model: 'traced-model', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello there' }], temperature: 0.3 },
        output: { index: 0, message: { role: 'assistant', content: 'Hello from the stand-in upstream.' }, finish_reason: 'stop' },
        summary: { usage: { 'traced-model': { requests: 1, prompt_tokens: 4, completion_tokens: 6 } } },
      },
      {
        inputs: { messages: [{ role: 'developer', content: 'stream' }] },
        output: { message: { content: 'Hello from the stand-in upstream.' } },
        attributes: { trellis: { stream: true } },
      },
    ]);
  });

  it('records a failed completion with its exception', async () => {
    await sdk('trellis/traced')
      .chat.completions.create({ model: 'broken-model', messages: [{ role: 'user', content: 'x' }] })
      .catch(() => undefined);
    const [trace] = await flushed();
    expect(trace!.call).toMatchObject({ op_name: 'inference.chat.completions/broken-model', output: null, exception: 'The model server failed (HTTP 500)' });
  });

  it('does not trace requests that name no project', async () => {
    await sdk().chat.completions.create({ model: 'traced-model', messages: [{ role: 'user', content: 'x' }] });
    expect(await flushed()).toEqual([]);
  });

  it('is switched off and on per project by its admins', async () => {
    const { key: memberKey } = await platform.createUser('member', { trellis: 'MEMBER' });
    const set = `mutation($enabled: Boolean!) { setInferenceTracing(entity: "trellis", project: "traced", enabled: $enabled) }`;
    const denied = await platform.graphql(set, { enabled: false }, memberKey);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');

    expect((await platform.graphql(set, { enabled: false })).body.data.setInferenceTracing).toBe(false);
    await platform.graphql('mutation { ensureProject(entity: "trellis", name: "traced") { name } }');
    const shown = await platform.graphql('{ project(entity: "trellis", name: "traced") { inferenceTracing } }');
    expect(shown.body.data.project.inferenceTracing).toBe(false);
    await sdk('trellis/traced').chat.completions.create({ model: 'traced-model', messages: [{ role: 'user', content: 'x' }] });
    expect(await flushed()).toEqual([]);
    // Other projects are unaffected.
    await sdk('trellis/other').chat.completions.create({ model: 'traced-model', messages: [{ role: 'user', content: 'x' }] });
    expect((await flushed()).map((trace) => trace.project)).toEqual(['other']);

    await platform.graphql(set, { enabled: true });
    await sdk('trellis/traced').chat.completions.create({ model: 'traced-model', messages: [{ role: 'user', content: 'x' }] });
    expect(await flushed()).toHaveLength(1);
  });
});
