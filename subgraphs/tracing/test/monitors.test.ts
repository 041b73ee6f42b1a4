import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACING_CALLS_ENDED_EVENT } from '../../../platform/events/contracts.js';
import { publishEvents } from '../../../platform/events/index.js';
import { createTestDatabase } from '../../../test/support/database.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { isSampled } from '../monitor/call-selection.js';
import type { TracingServices } from '../services.js';
import { startOf, traces } from './helpers.js';

/**
 * Monitors score a project's calls as their ends are written, through a platform event per written batch and a
 * durable consumer: built-in checks, the filter, deterministic sampling, pause, once per (monitor, call) across
 * processes and redelivered events, and the admin-only, validated definition. Everything goes through real HTTP
 * (REST ingestion as the Weave SDKs send it, GraphQL for monitors) on two platforms sharing one database.
 */
let platform: TestPlatform;
let second: TestPlatform;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  // A price for the embedded model, so a judge's tokens have a cost to check.
  const pricesFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'trellis-monitor-prices-')), 'prices.json');
  await writeFile(pricesFile, JSON.stringify({ prices: { 'trellis-tiny': { input_per_million: 2, output_per_million: 6 } } }));
  platform = await startTestPlatform({ databaseUrl, env: { TRELLIS_MODEL_PRICES_FILE: pricesFile } });
  second = await startTestPlatform({ databaseUrl });
}, 120_000);
afterAll(async () => {
  await second?.close();
  await platform?.close();
});

const MONITOR_FIELDS = `id name ref active samplingRate filter { opNames attributes rootsOnly } scorer { kind field pattern jsonSchema minLength maxLength otherField }`;
const CREATE = `mutation($entity: String!, $project: String!, $input: MonitorInput!) { createMonitor(entity: $entity, project: $project, input: $input) { ${MONITOR_FIELDS} } }`;
const PAUSE = `mutation($entity: String!, $project: String!, $id: String!) { pauseMonitor(entity: $entity, project: $project, id: $id) { id active } }`;
const RESUME = `mutation($entity: String!, $project: String!, $id: String!) { resumeMonitor(entity: $entity, project: $project, id: $id) { id active } }`;
const LIST = `query($entity: String!, $name: String!) { project(entity: $entity, name: $name) { monitors { ${MONITOR_FIELDS} stats { scored skippedBySampling failed meanLatencyMs meanScore promptTokens completionTokens judgeUsage { model inputTokens outputTokens cost } } } } }`;

interface Stats {
  scored: number;
  skippedBySampling: number;
  failed: number;
  meanLatencyMs: number | null;
  meanScore: number | null;
  promptTokens: number;
  completionTokens: number;
  judgeUsage: { model: string; inputTokens: number; outputTokens: number; cost: number | null } | null;
}

const projects = new Set<string>();

/** The identity project (the graph's `project` field needs one; writing calls creates it too: then CONFLICT). */
async function ensureProject(project: string): Promise<void> {
  if (projects.has(project)) return;
  projects.add(project);
  const { body } = await platform.graphql('mutation($name: String!) { createProject(entity: "trellis", name: $name) { fullName } }', { name: project });
  if (body.errors) expect(body.errors[0].extensions.code).toBe('CONFLICT');
}

async function createMonitor(project: string, input: Record<string, unknown>, on = platform): Promise<{ id: string; ref: string }> {
  await ensureProject(project);
  const { body } = await on.graphql(CREATE, { entity: 'trellis', project, input });
  expect(body.errors).toBeUndefined();
  return body.data.createMonitor;
}

async function monitors(project: string): Promise<{ id: string; name: string; stats: Stats }[]> {
  await ensureProject(project);
  const { body } = await platform.graphql(LIST, { entity: 'trellis', name: project });
  expect(body.errors).toBeUndefined();
  return body.data.project.monitors;
}

async function statsOf(project: string, id: string): Promise<Stats> {
  return (await monitors(project)).find((monitor) => monitor.id === id)!.stats;
}

/** Waits until the monitor has looked at `total` calls (scored + skipped + failed). */
async function settled(project: string, id: string, total: number): Promise<Stats> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const stats = await statsOf(project, id);
    if (stats.scored + stats.skippedBySampling + stats.failed >= total || Date.now() > deadline) return stats;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Call = { id: string; output: unknown; op_name?: string; parent_id?: string; trace_id?: string; attributes?: Record<string, unknown>; inputs?: Record<string, unknown> };

/** Starts and ends each call with one `/call/start` and one `/call/end` (the JS SDK's way). */
async function startAndEnd(projectId: string, calls: Call[], on = platform): Promise<void> {
  for (const call of calls) {
    const { output, ...start } = call;
    expect((await traces(on, '/call/start', startOf(projectId, start))).status).toBe(200);
    const end = await traces(on, '/call/end', { end: { project_id: projectId, id: call.id, ended_at: new Date().toISOString(), output, summary: {} } });
    expect(end.status).toBe(200);
  }
}

/** Starts and ends the calls in one `/call/upsert_batch` (the Python SDK's way). */
async function upsertBatch(projectId: string, calls: Call[], on = platform): Promise<void> {
  const batch = calls.flatMap(({ output, ...start }) => [
    { mode: 'start', req: startOf(projectId, start) },
    { mode: 'end', req: { end: { project_id: projectId, id: start.id, ended_at: new Date().toISOString(), output, summary: {} } } },
  ]);
  expect((await traces(on, '/call/upsert_batch', { batch })).status).toBe(200);
}

async function feedbackOf(projectId: string, type: string): Promise<{ weave_ref: string; payload: any; runnable_ref: string; trigger_ref: string; feedback_type: string }[]> {
  const response = await traces(platform, '/feedback/query', {
    project_id: projectId,
    query: { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: type }] } },
    limit: 10_000,
  });
  expect(response.status).toBe(200);
  return response.body.result;
}

const callIdOf = (ref: string) => ref.split('/').at(-1)!;
let nextId = 0;
const newId = (prefix: string) => `${prefix}-${++nextId}`;

describe('built-in checks', () => {
  it('score calls ended through /call/start + /call/end and /call/upsert_batch, as feedback the aggregate groups by scorer', async () => {
    const project = 'monitors-checks';
    const projectId = `trellis/${project}`;
    const regex = await createMonitor(project, { name: 'has-number', samplingRate: 1, scorer: { kind: 'REGEX', pattern: '\\d+' } });
    const equals = await createMonitor(project, { name: 'correct', samplingRate: 1, scorer: { kind: 'EQUALS', field: 'output', otherField: 'inputs.expected' } });
    const schema = await createMonitor(project, {
      name: 'json-answer',
      samplingRate: 1,
      scorer: { kind: 'JSON_SCHEMA', jsonSchema: { type: 'object', required: ['answer'], properties: { answer: { type: 'number' } } } },
    });
    const length = await createMonitor(project, { name: 'short', samplingRate: 1, scorer: { kind: 'LENGTH', maxLength: 10 } });

    await startAndEnd(projectId, [
      { id: 'c1', output: 'it is 42', inputs: { expected: 'it is 42' } },
      { id: 'c2', output: 'no digits here', inputs: { expected: 'something else' } },
    ]);
    await upsertBatch(projectId, [
      { id: 'c3', output: '{"answer": 7}', inputs: { expected: '{"answer": 7}' } },
      { id: 'c4', output: { answer: 'seven' } },
    ]);

    const regexStats = await settled(project, regex.id, 4);
    expect(regexStats).toMatchObject({ scored: 4, skippedBySampling: 0, failed: 0, meanScore: 0.5 });
    expect(regexStats.meanLatencyMs).toBeGreaterThanOrEqual(0);
    // c4 has no inputs.expected: it fails (counted) instead of scoring.
    expect(await settled(project, equals.id, 4)).toMatchObject({ scored: 3, failed: 1, meanScore: 2 / 3 });
    expect(await settled(project, schema.id, 4)).toMatchObject({ scored: 4, failed: 0, meanScore: 0.25 });
    // 'it is 42' alone has at most 10 characters (an object output is measured as its JSON).
    expect(await settled(project, length.id, 4)).toMatchObject({ scored: 4, meanScore: 0.25 });

    const scores = await feedbackOf(projectId, 'wandb.runnable.has-number');
    expect(Object.fromEntries(scores.map((row) => [callIdOf(row.weave_ref), row.payload.output]))).toEqual({ c1: 1, c2: 0, c3: 1, c4: 0 });
    expect(scores[0]).toMatchObject({ runnable_ref: regex.ref, trigger_ref: regex.ref });
    expect(regex.ref).toBe(`weave:///${projectId}/object/has-number:${regex.id}`);
    expect(scores.find((row) => callIdOf(row.weave_ref) === 'c2')!.payload.reason).toBe('output does not match /\\d+/');
    const invalid = (await feedbackOf(projectId, 'wandb.runnable.json-answer')).find((row) => callIdOf(row.weave_ref) === 'c4')!;
    expect(invalid.payload).toEqual({ output: 0, reason: 'output/answer must be number' });

    // The aggregate the Evaluations page reads: one group per scorer, its mean = rating_sums / rating_counts.
    const aggregate = await traces(platform, '/feedback/aggregate', {
      project_id: projectId,
      after_ms: Date.now() - 3_600_000,
      before_ms: Date.now() + 60_000,
      group_by: ['scorer_id'],
    });
    expect(aggregate.status).toBe(200);
    const byScorer = Object.fromEntries(
      (aggregate.body.buckets as { group: { scorer_id: string }; rating_sums: Record<string, number>; rating_counts: Record<string, number> }[]).map((bucket) => [
        bucket.group.scorer_id,
        bucket.rating_sums._rating_! / bucket.rating_counts._rating_!,
      ]),
    );
    expect(byScorer).toEqual({ 'has-number': 0.5, correct: 2 / 3, 'json-answer': 0.25, short: 0.25 });
  });
});

describe('v2 calls/complete', () => {
  it('scores finished calls written through /v2/{entity}/{project}/calls/complete', async () => {
    const project = 'monitors-v2';
    const projectId = `trellis/${project}`;
    const monitor = await createMonitor(project, { name: 'v2', samplingRate: 1, scorer: { kind: 'CONTAINS', otherField: 'inputs.word' } });
    const now = new Date().toISOString();
    const call = (id: string, output: string) => ({ project_id: projectId, id, trace_id: id, op_name: 'op', started_at: now, ended_at: now, attributes: {}, inputs: { word: 'cat' }, output });
    const complete = await traces(platform, `/v2/trellis/${project}/calls/complete`, { batch: [call('v1', 'a cat'), call('v2', 'a dog')] });
    expect(complete.status).toBe(200);
    expect(await settled(project, monitor.id, 2)).toMatchObject({ scored: 2, meanScore: 0.5 });
  });
});

describe('traced inference completions', () => {
  it('are scored once recorded as calls: a chat completion through the OpenAI SDK to the embedded model, in a monitored project', async () => {
    const project = 'monitors-inference';
    const projectId = `trellis/${project}`;
    const monitor = await createMonitor(project, {
      name: 'answered',
      samplingRate: 1,
      filter: { opNames: ['inference.chat.completions/trellis-tiny'] },
      scorer: { kind: 'LENGTH', field: 'output.message.content', minLength: 1 },
    });
    const openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: projectId });
    const completion = await openai.chat.completions.create({ model: 'trellis-tiny', messages: [{ role: 'user', content: '2+2=' }], max_tokens: 4 });
    expect(completion.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(await settled(project, monitor.id, 1)).toMatchObject({ scored: 1, failed: 0, meanScore: 1 });
    const [score] = await feedbackOf(projectId, 'wandb.runnable.answered');
    expect(score!.payload.reason).toMatch(/^output\.message\.content has \d+ characters \(within 1–∞\)$/);
  }, 60_000);
});

describe('LLM judge', () => {
  it('asks the embedded model through the inference family and records the first number of its answer (clamped) as the score, with its tokens and latency', async () => {
    const project = 'monitors-judge';
    const projectId = `trellis/${project}`;
    const monitor = await createMonitor(project, {
      name: 'judge',
      samplingRate: 1,
      scorer: { kind: 'LLM_JUDGE', prompt: 'Question: {{inputs.question}} Answer: {{output}} Score 0 to 10:', scoreMax: 10, maxTokens: 8 },
    });
    await upsertBatch(projectId, [
      { id: 'j1', inputs: { question: '2+2=' }, output: '4' },
      { id: 'j2', inputs: { question: '3+5=' }, output: '9' },
    ]);
    const stats = await settled(project, monitor.id, 2);
    expect(stats.scored + stats.failed).toBe(2);
    expect(stats.promptTokens).toBeGreaterThan(0);
    expect(stats.completionTokens).toBeGreaterThan(0);
    expect(stats.meanLatencyMs).toBeGreaterThan(0);
    // Its cost: the judge's tokens at the price of its model (the prices file's trellis-tiny, $2 and $6 per million).
    expect(stats.judgeUsage).toEqual({
      model: 'trellis-tiny',
      inputTokens: stats.promptTokens,
      outputTokens: stats.completionTokens,
      cost: expect.closeTo((stats.promptTokens * 2 + stats.completionTokens * 6) / 1e6, 12),
    });
    // Each score is what the answer (the reason) says: its first number, clamped to [0, 10].
    for (const row of await feedbackOf(projectId, 'wandb.runnable.judge')) {
      const first = Number(/-?\d+(?:\.\d+)?/.exec(row.payload.reason)![0]);
      expect(row.payload.output).toBe(Math.min(10, Math.max(0, first)));
    }
    // The judge's own completions name no project: they are not traced (traced, the monitor would judge them too).
    const calls = await traces(platform, '/calls/query', { project_id: projectId, limit: 100 });
    expect((calls.body.calls as { id: string }[]).map((call) => call.id).sort()).toEqual(['j1', 'j2']);
  }, 60_000);
});

describe('an LLM judge whose creator left the team', () => {
  it("asks no model any more: the monitor's new calls fail (no tokens spent) instead of being judged for someone removed", async () => {
    const project = 'monitors-judge-left';
    const projectId = `trellis/${project}`;
    await ensureProject(project);
    const owner = await platform.createUser('judge-owner', { trellis: 'ADMIN' });
    const created = await platform.graphql(
      CREATE,
      { entity: 'trellis', project, input: { name: 'judge', samplingRate: 1, scorer: { kind: 'LLM_JUDGE', prompt: 'Answer: {{output}} Score 0 to 10:', scoreMax: 10, maxTokens: 4 } } },
      owner.key,
    );
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createMonitor.id as string;
    await upsertBatch(projectId, [{ id: 'left-1', output: '4' }]);
    const before = await settled(project, id, 1);
    expect(before.scored + before.failed).toBe(1);
    expect(before.promptTokens).toBeGreaterThan(0); // the model was asked

    const removed = await platform.graphql('mutation { removeTeamMember(username: "judge-owner", team: "trellis") }');
    expect(removed.body.errors).toBeUndefined();
    await upsertBatch(projectId, [{ id: 'left-2', output: '5' }]);
    const after = await settled(project, id, 2);
    expect(after).toMatchObject({ scored: before.scored, failed: before.failed + 1, promptTokens: before.promptTokens, completionTokens: before.completionTokens });
  }, 60_000);
});

describe('what a monitor looks at', () => {
  it('a paused monitor scores nothing, and scores new calls again once resumed', async () => {
    const project = 'monitors-paused';
    const projectId = `trellis/${project}`;
    const sentinel = await createMonitor(project, { name: 'sentinel', samplingRate: 1, scorer: { kind: 'LENGTH', minLength: 0 } });
    const paused = await createMonitor(project, { name: 'paused', samplingRate: 1, scorer: { kind: 'LENGTH', minLength: 0 } });
    expect((await platform.graphql(PAUSE, { entity: 'trellis', project, id: paused.id })).body.data.pauseMonitor).toEqual({ id: paused.id, active: false });
    await upsertBatch(projectId, [{ id: 'p1', output: 'a' }, { id: 'p2', output: 'b' }]);
    await settled(project, sentinel.id, 2);
    expect(await statsOf(project, paused.id)).toMatchObject({ scored: 0, skippedBySampling: 0, failed: 0, judgeUsage: null });
    expect(await feedbackOf(projectId, 'wandb.runnable.paused')).toEqual([]);

    expect((await platform.graphql(RESUME, { entity: 'trellis', project, id: paused.id })).body.data.resumeMonitor.active).toBe(true);
    await upsertBatch(projectId, [{ id: 'p3', output: 'c' }]);
    expect(await settled(project, paused.id, 1)).toMatchObject({ scored: 1 });
    expect((await feedbackOf(projectId, 'wandb.runnable.paused')).map((row) => callIdOf(row.weave_ref))).toEqual(['p3']);
  });

  it('scores a call whose end was written before its start once the start arrives: /call/start, and /call/upsert_batch', async () => {
    const project = 'monitors-end-first';
    const projectId = `trellis/${project}`;
    const monitor = await createMonitor(project, { name: 'end-first', samplingRate: 1, scorer: { kind: 'REGEX', pattern: 'Paris' } });
    const endOf = (id: string) => ({ end: { project_id: projectId, id, ended_at: new Date().toISOString(), output: 'Paris', summary: {} } });
    // The ends first (single /call/end, and a batch of ends alone): nothing to score yet, the calls have no start.
    expect((await traces(platform, '/call/end', endOf('e1'))).status).toBe(200);
    expect((await traces(platform, '/call/upsert_batch', { batch: [{ mode: 'end', req: endOf('e2') }] })).status).toBe(200);
    // A sentinel call ended normally after them: once it is scored, the consumer has passed the early ends' events.
    await upsertBatch(projectId, [{ id: 'sentinel', output: 'Paris' }]);
    expect(await settled(project, monitor.id, 1)).toMatchObject({ scored: 1 });
    // Then the starts, each way: each completes its call, which is then scored once.
    expect((await traces(platform, '/call/start', startOf(projectId, { id: 'e1' }))).status).toBe(200);
    expect((await traces(platform, '/call/upsert_batch', { batch: [{ mode: 'start', req: startOf(projectId, { id: 'e2' }) }] })).status).toBe(200);
    expect(await settled(project, monitor.id, 3)).toMatchObject({ scored: 3, failed: 0 });
    expect((await feedbackOf(projectId, 'wandb.runnable.end-first')).map((row) => callIdOf(row.weave_ref)).sort()).toEqual(['e1', 'e2', 'sentinel']);
  });

  it('honours the filter: op names (plain or as op refs), attribute values, trace roots only', async () => {
    const project = 'monitors-filter';
    const projectId = `trellis/${project}`;
    const sentinel = await createMonitor(project, { name: 'all', samplingRate: 1, scorer: { kind: 'LENGTH', minLength: 0 } });
    const filtered = await createMonitor(project, {
      name: 'filtered',
      samplingRate: 1,
      filter: { opNames: ['answer'], attributes: { env: 'prod' }, rootsOnly: true },
      scorer: { kind: 'LENGTH', minLength: 0 },
    });
    const opRef = `weave:///${projectId}/op/answer:abc123`;
    await upsertBatch(projectId, [
      { id: 'f-match', op_name: 'answer', attributes: { env: 'prod' }, output: 'x' },
      { id: 'f-match-ref', op_name: opRef, attributes: { env: 'prod', other: 1 }, output: 'x' },
      { id: 'f-other-op', op_name: 'retrieve', attributes: { env: 'prod' }, output: 'x' },
      { id: 'f-other-env', op_name: 'answer', attributes: { env: 'dev' }, output: 'x' },
      { id: 'f-no-attr', op_name: 'answer', output: 'x' },
      { id: 'f-child', op_name: 'answer', attributes: { env: 'prod' }, parent_id: 'f-match', trace_id: 't', output: 'x' },
    ]);
    await settled(project, sentinel.id, 6);
    expect(await statsOf(project, filtered.id)).toMatchObject({ scored: 2, skippedBySampling: 0, failed: 0 });
    expect((await feedbackOf(projectId, 'wandb.runnable.filtered')).map((row) => callIdOf(row.weave_ref)).sort()).toEqual(['f-match', 'f-match-ref']);
  });

  it('samples a rate of 0.3 within statistical bounds over 1,000 calls, deciding each call the same way on a replay', async () => {
    const project = 'monitors-sampling';
    const projectId = `trellis/${project}`;
    const monitor = await createMonitor(project, { name: 'sampled', samplingRate: 0.3, filter: { opNames: ['my_op'] }, scorer: { kind: 'LENGTH', minLength: 0 } });
    const ids = Array.from({ length: 1000 }, (_, index) => `s-${index}`);
    for (let from = 0; from < ids.length; from += 250) {
      await upsertBatch(projectId, ids.slice(from, from + 250).map((id) => ({ id, output: 'x' })));
    }
    const stats = await settled(project, monitor.id, 1000);
    expect(stats.scored + stats.skippedBySampling).toBe(1000);
    // Binomial(1000, 0.3): mean 300, σ ≈ 14.5; ±4.5σ fails a correct sampler about once in 150,000 runs.
    const sigma = Math.sqrt(1000 * 0.3 * 0.7);
    expect(Math.abs(stats.scored - 300)).toBeLessThanOrEqual(4.5 * sigma);
    const scoredIds = (await feedbackOf(projectId, 'wandb.runnable.sampled')).map((row) => callIdOf(row.weave_ref)).sort();
    expect(scoredIds).toEqual(ids.filter((id) => isSampled(monitor.id, id, 0.3)).sort());

    // The same calls delivered again (a replay): the same decisions, nothing new recorded.
    await republish(projectId, ids);
    await settledSentinel(project, projectId);
    expect(await statsOf(project, monitor.id)).toEqual(stats);
    expect((await feedbackOf(projectId, 'wandb.runnable.sampled')).length).toBe(scoredIds.length);
  }, 60_000);
});

/** Publishes the calls-ended event again for these calls, as a redelivery would. */
async function republish(projectId: string, callIds: string[]): Promise<void> {
  const services = platform.subgraphs.get('tracing')!.services as TracingServices;
  const [entity, project] = projectId.split('/') as [string, string];
  await publishEvents(services.db, [{ type: TRACING_CALLS_ENDED_EVENT, entity, project, author: 'test', payload: { call_ids: callIds } }]);
}

/**
 * Waits until an event published after a republish is applied (events are applied in order, so the republished one
 * is done too): a marker monitor of `marker` calls (which the tests' monitors filter out) and one such call.
 */
async function settledSentinel(project: string, projectId: string): Promise<void> {
  const marker = await createMonitor(project, { name: `marker-${++nextId}`, samplingRate: 1, filter: { opNames: ['marker'] }, scorer: { kind: 'LENGTH', minLength: 0 } });
  const id = newId('marker');
  await upsertBatch(projectId, [{ id, op_name: 'marker', output: 'x' }]);
  await settled(project, marker.id, 1);
}

describe('once per monitor and call', () => {
  it('two platforms on one database, and events delivered again, never score a call twice', async () => {
    const project = 'monitors-twice';
    const projectId = `trellis/${project}`;
    // Created through the second platform: the first learns of it through the notification.
    const monitor = await createMonitor(project, { name: 'once', samplingRate: 1, filter: { opNames: ['my_op'] }, scorer: { kind: 'REGEX', pattern: 'ok' } }, second);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids: string[] = [];
    for (let round = 0; round < 10; round++) {
      const batch = Array.from({ length: 20 }, () => ({ id: newId('twice'), output: 'ok' }));
      ids.push(...batch.map((call) => call.id));
      await Promise.all([upsertBatch(projectId, batch.slice(0, 10), platform), upsertBatch(projectId, batch.slice(10), second)]);
    }
    expect(await settled(project, monitor.id, ids.length)).toMatchObject({ scored: ids.length, failed: 0 });
    await republish(projectId, ids);
    await settledSentinel(project, projectId);
    const scores = (await feedbackOf(projectId, 'wandb.runnable.once')).map((row) => callIdOf(row.weave_ref)).sort();
    expect(scores).toEqual([...ids].sort());
    expect((await statsOf(project, monitor.id)).scored).toBe(ids.length);
  }, 60_000);
});

describe('defining monitors', () => {
  it('is for project admins: a member or an outsider is FORBIDDEN and nothing is created', async () => {
    const project = 'monitors-admins';
    const member = await platform.createUser('monitor-member', { trellis: 'MEMBER' });
    const outsider = await platform.createUser('monitor-outsider');
    for (const key of [member.key, outsider.key]) {
      const { body } = await platform.graphql(CREATE, { entity: 'trellis', project, input: { name: 'nope', samplingRate: 1, scorer: { kind: 'REGEX', pattern: 'x' } } }, key);
      expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const created = await createMonitor(project, { name: 'mine', samplingRate: 1, scorer: { kind: 'REGEX', pattern: 'x' } });
    const pause = await platform.graphql(PAUSE, { entity: 'trellis', project, id: created.id }, member.key);
    expect(pause.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await monitors(project)).map((monitor) => [monitor.name, (monitor as unknown as { active: boolean }).active])).toEqual([['mine', true]]);
  });

  it('refuses bad definitions with BAD_USER_INPUT at the field, creating nothing', async () => {
    const project = 'monitors-invalid';
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ name: 'bad-regex', samplingRate: 1, scorer: { kind: 'REGEX', pattern: '(unclosed' } }, ['input', 'scorer', 'pattern']],
      [{ name: 'lookahead', samplingRate: 1, scorer: { kind: 'REGEX', pattern: 'a(?=b)' } }, ['input', 'scorer', 'pattern']],
      [{ name: 'bad-schema', samplingRate: 1, scorer: { kind: 'JSON_SCHEMA', jsonSchema: { type: 'nonsense' } } }, ['input', 'scorer', 'jsonSchema']],
      [{ name: 'rate-zero', samplingRate: 0, scorer: { kind: 'REGEX', pattern: 'x' } }, ['input', 'samplingRate']],
      [{ name: 'rate-high', samplingRate: 1.5, scorer: { kind: 'REGEX', pattern: 'x' } }, ['input', 'samplingRate']],
      [{ name: 'no-other', samplingRate: 1, scorer: { kind: 'EQUALS' } }, ['input', 'scorer', 'otherField']],
      [{ name: 'bounds', samplingRate: 1, scorer: { kind: 'LENGTH', minLength: 5, maxLength: 2 } }, ['input', 'scorer', 'maxLength']],
      [{ name: 'judge-placeholder', samplingRate: 1, scorer: { kind: 'LLM_JUDGE', prompt: 'Rate {{answer}}' } }, ['input', 'scorer', 'prompt']],
      [{ name: 'judge-no-prompt', samplingRate: 1, scorer: { kind: 'LLM_JUDGE' } }, ['input', 'scorer', 'prompt']],
      [{ name: 'judge-scale', samplingRate: 1, scorer: { kind: 'LLM_JUDGE', prompt: 'Rate {{output}}', scoreMin: 5, scoreMax: 5 } }, ['input', 'scorer', 'scoreMax']],
      [{ name: 'bad name!', samplingRate: 1, scorer: { kind: 'REGEX', pattern: 'x' } }, ['input', 'name']],
    ];
    for (const [input, field] of cases) {
      const { body } = await platform.graphql(CREATE, { entity: 'trellis', project, input });
      expect(body.errors?.[0]?.extensions, JSON.stringify(input)).toMatchObject({ code: 'BAD_USER_INPUT', field });
      // The message says what is wrong (not only that validation failed).
      if (field.at(-1) !== 'samplingRate' && field.at(-1) !== 'name') expect(body.errors[0].message).not.toBe('Request validation failed');
    }
    expect(await monitors(project)).toEqual([]);
  });
});

const BACKFILL = `mutation($entity: String!, $project: String!, $id: String!, $from: DateTimeISO!, $to: DateTimeISO!) {
  backfillMonitor(entity: $entity, project: $project, id: $id, from: $from, to: $to) { calls scored skippedBySampling failed resumeFrom }
}`;

describe('backfill', () => {
  it('scores the ended calls of a time range through the once-only path: repeated, or over calls scored live, it changes nothing', async () => {
    const project = 'monitors-backfill';
    const projectId = `trellis/${project}`;
    const hoursAgo = (hours: number, plusSeconds = 0) => new Date(Date.now() - hours * 3_600_000 + plusSeconds * 1000).toISOString();
    const old = Array.from({ length: 30 }, (_, index) => ({ id: `b-${index}`, started_at: hoursAgo(2, index), output: index % 3 === 0 ? 'ok' : 'no' }));
    await upsertBatch(projectId, [...old, { id: 'b-long-ago', started_at: hoursAgo(240), output: 'ok' }]);
    // Started, never ended: nothing to score yet.
    expect((await traces(platform, '/call/start', startOf(projectId, { id: 'b-open', started_at: hoursAgo(1) }))).status).toBe(200);

    const monitor = await createMonitor(project, { name: 'late', samplingRate: 0.5, scorer: { kind: 'REGEX', pattern: '^ok$' } });
    const live = [{ id: 'b-live', started_at: hoursAgo(0.5), output: 'ok' }];
    await upsertBatch(projectId, live);
    await settled(project, monitor.id, 1);

    const window = { entity: 'trellis', project, id: monitor.id, from: hoursAgo(3), to: new Date(Date.now() + 1000).toISOString() };
    const first = await platform.graphql(BACKFILL, window);
    expect(first.body.errors).toBeUndefined();
    const sampled = old.filter((call) => isSampled(monitor.id, call.id, 0.5));
    expect(first.body.data.backfillMonitor).toEqual({ calls: 31, scored: sampled.length, skippedBySampling: 30 - sampled.length, failed: 0, resumeFrom: null });
    const scores = await feedbackOf(projectId, 'wandb.runnable.late');
    expect(scores.map((row) => callIdOf(row.weave_ref)).sort()).toEqual([...sampled.map((call) => call.id), ...(isSampled(monitor.id, 'b-live', 0.5) ? ['b-live'] : [])].sort());
    for (const row of scores) expect(row.payload.output).toBe(row.weave_ref.endsWith('b-live') || old.find((call) => call.id === callIdOf(row.weave_ref))!.output === 'ok' ? 1 : 0);

    const again = await platform.graphql(BACKFILL, window);
    expect(again.body.data.backfillMonitor).toEqual({ calls: 31, scored: 0, skippedBySampling: 0, failed: 0, resumeFrom: null });
    expect((await feedbackOf(projectId, 'wandb.runnable.late')).length).toBe(scores.length);
    const stats = await statsOf(project, monitor.id);
    expect(stats.scored + stats.skippedBySampling).toBe(31);
  });

  it('refuses an empty range (BAD_USER_INPUT at to) and non-admins (FORBIDDEN), scoring nothing', async () => {
    const project = 'monitors-backfill-refused';
    const projectId = `trellis/${project}`;
    await upsertBatch(projectId, [{ id: 'r-1', output: 'ok' }]);
    const monitor = await createMonitor(project, { name: 'r', samplingRate: 1, scorer: { kind: 'REGEX', pattern: 'ok' } });
    const now = new Date();
    const empty = await platform.graphql(BACKFILL, { entity: 'trellis', project, id: monitor.id, from: now.toISOString(), to: now.toISOString() });
    expect(empty.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['to'] });
    const member = await platform.createUser('backfill-member', { trellis: 'MEMBER' });
    const window = { entity: 'trellis', project, id: monitor.id, from: new Date(now.getTime() - 3_600_000).toISOString(), to: new Date(now.getTime() + 1000).toISOString() };
    expect((await platform.graphql(BACKFILL, window, member.key)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await statsOf(project, monitor.id)).toMatchObject({ scored: 0, skippedBySampling: 0, failed: 0 });
    expect((await platform.graphql(BACKFILL, window)).body.data.backfillMonitor).toMatchObject({ calls: 1, scored: 1 });
  });
});
