import OpenAI from 'openai';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import { INFERENCE_COMPLETIONS_EVENT } from '../../../platform/events/contracts.js';
import { publishEvents } from '../../../platform/events/index.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import type { InferenceServices } from '../services.js';
import { usageStore, type UsageRecord } from '../usage/usage.store.js';

/**
 * Nothing of inference grows forever: usage records older than TRELLIS_USAGE_RETENTION_DAYS are deleted, and the
 * outbox events carrying traced completions are deleted once the tracing subgraph recorded them as calls. Both in
 * batches of TRELLIS_RETENTION_BATCH_SIZE, touching nothing else. The workers' own schedule is an hour here, so the
 * test runs their sweeps itself.
 */
const BATCH = 10;
let platform: TestPlatform;
let upstream: StandInUpstream;
let services: InferenceServices;

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'retention' });
  platform = await startTestPlatform({
    env: {
      TRELLIS_USAGE_RETENTION_DAYS: '30',
      TRELLIS_RETENTION_BATCH_SIZE: String(BATCH),
      TRELLIS_RETENTION_INTERVAL_MS: '3600000',
      TRELLIS_RETENTION_PAUSE_MS: '1',
      TRELLIS_INFERENCE_USAGE_FLUSH_MS: '600000',
    },
  });
  services = platform.subgraphs.get('inference')!.services as InferenceServices;
  const { body } = await platform.graphql('mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id } }', {
    d: { id: 'retention-model', backend: 'OPENAI_COMPATIBLE', deployments: [{ baseUrl: upstream.baseUrl }] },
  });
  expect(body.errors).toBeUndefined();
});

afterAll(async () => {
  await platform?.close();
  await upstream?.close();
});

const sdk = (project: string) => new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project });

const record = (createdAt: Date, project: string): UsageRecord => ({
  createdAt,
  entity: 'trellis',
  project,
  model: 'retention-model',
  backend: 'openai-compatible',
  deployment: null,
  apiKeyId: null,
  userId: null,
  endUser: null,
  stream: false,
  status: 200,
  errorCode: null,
  errorMessage: null,
  promptTokens: 1,
  completionTokens: 1,
  totalTokens: 2,
  latencyMs: 1,
  firstTokenMs: null,
  attempts: 1,
  requestId: null,
});

const DAY_MS = 24 * 60 * 60 * 1000;

it('deletes usage records older than the retention, in batches, and keeps the others', async () => {
  // Requests served now, through the API: their records are recent.
  for (let i = 0; i < 3; i++) await sdk('trellis/usage-kept').chat.completions.create({ model: 'retention-model', messages: [{ role: 'user', content: 'hi' }] });
  await services.usage.flush();
  // Records of a month and more ago, as the recorder would have written them then; one just inside the retention.
  const old = Array.from({ length: 25 }, (_, i) => record(new Date(Date.now() - (31 + i) * DAY_MS), 'usage-old'));
  await usageStore.insertMany(services.db, [...old, record(new Date(Date.now() - 29 * DAY_MS), 'usage-recent')]);

  const result = await services.usageRetention.sweep();
  expect(result).toEqual({ deleted: 25, batches: Math.ceil(25 / BATCH) });
  const left = await services.db.selectFrom('usage_records').select(['project']).orderBy('id').execute();
  expect(left.map((row) => row.project)).toEqual(['usage-kept', 'usage-kept', 'usage-kept', 'usage-recent']);
});

it('deletes the traced completions from the outbox once the tracing subgraph recorded them, in batches', async () => {
  const countEvents = async (type: string) =>
    Number((await sql<{ n: string }>`select count(*) as n from platform_events.events where type = ${type}`.execute(platform.db.root)).rows[0]!.n);
  await publishEvents(platform.db.root, [{ type: 'retention.untouched', entity: 'trellis', project: 'default', author: 'admin', payload: {} }]);
  const before = await countEvents(INFERENCE_COMPLETIONS_EVENT);
  // One flush each: an outbox event per completion (a flush's completions of one project share an event).
  const completions = 12;
  for (let i = 0; i < completions; i++) {
    await sdk('trellis/default').chat.completions.create({ model: 'retention-model', messages: [{ role: 'user', content: `message ${i}` }] });
    await services.usage.flush();
  }
  expect(await countEvents(INFERENCE_COMPLETIONS_EVENT)).toBe(before + completions);

  const callCount = async () => {
    const { body } = await platform.graphql(`{ project(entity: "trellis", name: "default") { callCount } }`);
    if (!body.data?.project) throw new Error(JSON.stringify(body));
    return body.data.project.callCount as number;
  };
  await expect.poll(callCount, { timeout: 15_000 }).toBe(completions);
  // The recorder reports where it got to shortly after it recorded; the sweep deletes what it has passed.
  let deleted = 0;
  let batches = 0;
  await expect
    .poll(
      async () => {
        const result = await services.eventRetention.sweep();
        deleted += result.deleted;
        batches += result.batches;
        return countEvents(INFERENCE_COMPLETIONS_EVENT);
      },
      { timeout: 15_000, interval: 300 },
    )
    .toBe(0);
  expect(deleted).toBe(before + completions);
  expect(batches).toBeGreaterThanOrEqual(Math.ceil(completions / BATCH));
  // The calls stay, with what the events carried; other events are not the outbox's to prune.
  expect(await callCount()).toBe(completions);
  const { body } = await platform.graphql(`{ project(entity: "trellis", name: "default") { calls(first: 1) { nodes { inputs } } } }`);
  expect(JSON.stringify(body.data.project.calls.nodes[0].inputs)).toContain('message 0');
  expect(await countEvents('retention.untouched')).toBe(1);
});

it('knows every durable consumer of the platform, so the event retention never deletes what one has not applied', async () => {
  const positions = async () =>
    (await sql<{ consumer: string; types: string[]; cursor: string }>`select consumer, types, cursor from platform_events.consumer_positions order by consumer`.execute(platform.db.root)).rows;
  // Each registered when it started, with the types it applies.
  await expect
    .poll(async () => (await positions()).map((row) => row.consumer), { timeout: 10_000 })
    .toEqual(['automation-engine', 'inference-training-usage', 'registry-training-runs', 'tracing-inference-calls', 'tracing-monitors']);
  const engine = (await positions()).find((row) => row.consumer === 'automation-engine')!;
  expect(engine.types).toContain('CREATE_ARTIFACT');
  // An event the automation engine watches: its position moves past it once handled, not before.
  const [id] = await publishEvents(platform.db.root, [{ type: 'CREATE_ARTIFACT', entity: 'trellis', project: 'default', author: 'admin', payload: {} }]);
  await expect
    .poll(async () => {
      const cursor = (await positions()).find((row) => row.consumer === 'automation-engine')!.cursor;
      return BigInt(cursor.split('.')[1]!) >= BigInt(id!);
    }, { timeout: 10_000 })
    .toBe(true);
});
