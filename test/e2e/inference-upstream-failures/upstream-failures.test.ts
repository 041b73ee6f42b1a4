import { once } from 'node:events';
import net from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import type { InferenceServices } from '../../../subgraphs/inference/services.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../support/platform.js';

/**
 * What the inference family does when upstreams misbehave (real HTTP servers on loopback that fail, hang, answer
 * garbage or drop the connection) and when callers exceed their limits; every outcome leaves a usage record.
 */
const TIMEOUT_MS = 400;
const COOLDOWN_MS = 60_000;

let platform: TestPlatform;
const upstreams: Record<string, StandInUpstream> = {};
let closedPort: number;
let projectCounter = 0;

const sdk = (project?: string, apiKey = ADMIN_KEY) =>
  new OpenAI({ apiKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: project ?? null });

/** Each test attributes its requests to a project of its own, so the per-project limit does not couple them. */
const freshProject = () => `trellis/failures-${++projectCounter}`;

async function register(id: string, deployments: { base_url: string; timeout_ms?: number }[]) {
  const { body } = await platform.graphql('mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id } }', {
    d: { id, backend: 'OPENAI_COMPATIBLE', deployments: deployments.map(({ base_url, timeout_ms }) => ({ baseUrl: base_url, timeoutMs: timeout_ms })) },
  });
  expect(body.errors).toBeUndefined();
}

async function lastRecords(project: string, limit = 1) {
  await (platform.subgraphs.get('inference')!.services as InferenceServices).usage.flush();
  const [entity, name] = project.split('/');
  await platform.graphql('mutation($e: String!, $p: String!) { ensureProject(entity: $e, name: $p) { name } }', { e: entity, p: name });
  const { body } = await platform.graphql(
    `query($e: String!, $p: String!, $n: Int!) { project(entity: $e, name: $p) { inferenceUsageRecords(first: $n) { nodes {
      model status errorCode stream attempts deployment latencyMs firstTokenMs completionTokens } } } }`,
    { e: entity, p: name, n: limit },
  );
  return body.data.project.inferenceUsageRecords.nodes as any[];
}

beforeAll(async () => {
  for (const [name, mode] of [
    ['healthy', 'ok'],
    ['failing', 'fail-500'],
    ['hanging', 'hang'],
    ['garbage', 'garbage'],
    ['dropping', 'disconnect'],
  ] as const) {
    upstreams[name] = await startStandInUpstream({ name, mode });
  }
  upstreams.slow = await startStandInUpstream({ name: 'slow', delayMs: 300 });
  upstreams.trickle = await startStandInUpstream({ name: 'trickle', chunkDelayMs: 100 });
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  closedPort = (probe.address() as net.AddressInfo).port;
  probe.close();

  platform = await startTestPlatform({
    env: {
      TRELLIS_INFERENCE_UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      TRELLIS_INFERENCE_COOLDOWN_MS: String(COOLDOWN_MS),
      TRELLIS_INFERENCE_KEY_CONCURRENCY: '2',
      TRELLIS_INFERENCE_PROJECT_RPM: '3',
    },
  });
  await register('failover', [{ base_url: upstreams.failing!.baseUrl }, { base_url: upstreams.healthy!.baseUrl }]);
  await register('connect-failover', [{ base_url: `http://127.0.0.1:${closedPort}/v1` }, { base_url: upstreams.healthy!.baseUrl }]);
  await register('hung', [{ base_url: upstreams.hanging!.baseUrl }]);
  await register('garbled', [{ base_url: upstreams.garbage!.baseUrl }]);
  await register('dropped', [{ base_url: upstreams.dropping!.baseUrl }]);
  await register('slow', [{ base_url: upstreams.slow!.baseUrl, timeout_ms: 5_000 }]);
  await register('trickle', [{ base_url: upstreams.trickle!.baseUrl, timeout_ms: 5_000 }]);
});

afterAll(async () => {
  await platform?.close();
  await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
});

const ask = (model: string, project: string) =>
  sdk(project).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });

describe('failing deployments', () => {
  it('retries a 5xx on the other deployment, then passes over the failing one while it cools down', async () => {
    const project = freshProject();
    const failingBefore = upstreams.failing!.requests.length;
    const completion = await ask('failover', project);
    expect(completion.choices[0]!.message.content).toBe('Hello from the stand-in upstream.');
    // Whichever deployment the rotation tried first, the failing one saw at most one request...
    const [first] = await lastRecords(project);
    expect(first).toMatchObject({ status: 200, deployment: 'failover#1' });
    const failedOnce = upstreams.failing!.requests.length - failingBefore;
    expect(first.attempts).toBe(failedOnce + 1);
    // ...and after it failed, it is not tried again within the cool-down.
    await ask('failover', project);
    await ask('failover', project);
    expect(upstreams.failing!.requests.length - failingBefore).toBe(failedOnce);
  });

  it('retries a connection error on the other deployment', async () => {
    const project = freshProject();
    await ask('connect-failover', project);
    await ask('connect-failover', project);
    const records = await lastRecords(project, 2);
    expect(records.every((record) => record.status === 200 && record.deployment === 'connect-failover#1')).toBe(true);
    // The refused deployment was tried by exactly one of the two requests (then it cooled down).
    expect(records.map((record) => record.attempts).sort()).toEqual([1, 2]);
  });

  it('answers 504 when the upstream sends no first byte within the time-out', async () => {
    const project = freshProject();
    const started = Date.now();
    const error = await ask('hung', project).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_500);
    expect(await lastRecords(project)).toMatchObject([{ status: 504, errorCode: 'UPSTREAM_TIMEOUT', attempts: 1 }]);
  });

  it('answers 502 for garbage, plain and streamed', async () => {
    const project = freshProject();
    const error = await ask('garbled', project).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    const streamed = await sdk(project)
      .chat.completions.create({ model: 'garbled', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((e: unknown) => e);
    expect((streamed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(await lastRecords(project, 2)).toMatchObject([
      { status: 502, errorCode: 'UPSTREAM_ERROR', stream: true },
      { status: 502, errorCode: 'UPSTREAM_ERROR', stream: false },
    ]);
  });

  it('answers 502 when the upstream drops the connection', async () => {
    const project = freshProject();
    const error = await ask('dropped', project).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(await lastRecords(project)).toMatchObject([{ status: 502, errorCode: 'UPSTREAM_ERROR' }]);
  });
});

describe('streaming', () => {
  it('delivers the first chunk before the upstream has finished', async () => {
    const started = Date.now();
    const stream = await sdk(freshProject()).chat.completions.create({
      model: 'trickle',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    const firstChunkAfter = Date.now() - started;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      // drain
    }
    const totalAfter = Date.now() - started;
    // The stand-in spaces its 8 events 100 ms apart: the first must arrive long before the last, not buffered.
    expect(totalAfter).toBeGreaterThanOrEqual(700);
    expect(totalAfter - firstChunkAfter).toBeGreaterThanOrEqual(500);
  });

  it('cancels the upstream request when the client disconnects, and records it', async () => {
    const project = freshProject();
    const abandonedBefore = upstreams.trickle!.abandoned;
    const controller = new AbortController();
    const response = await platform.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', 'compat-project': project },
      body: JSON.stringify({ model: 'trickle', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(() => upstreams.trickle!.abandoned, { timeout: 3_000 }).toBe(abandonedBefore + 1);
    await expect.poll(async () => (await lastRecords(project))[0]?.status, { timeout: 3_000 }).toBe(499);
    const [record] = await lastRecords(project);
    expect(record).toMatchObject({ stream: true, errorCode: 'BAD_REQUEST' });
    expect(record.firstTokenMs).toBeGreaterThan(0);
    expect(record.latencyMs).toBeLessThan(700);
  });

  it('ends a stream whose upstream stops sending with an error event instead of hanging', async () => {
    const upstream = await startStandInUpstream({ name: 'stall', mode: 'stream-then-hang' });
    try {
      await register('stall', [{ base_url: upstream.baseUrl }]);
      const response = await platform.fetch('/inference/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', 'compat-project': freshProject() },
        body: JSON.stringify({ model: 'stall', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      expect(response.status).toBe(200);
      const events = (await response.text()).split('\n\n').filter(Boolean);
      expect(events.at(-1)).toContain('"code":"upstream_timeout"');
      expect(events).not.toContain('data: [DONE]');
    } finally {
      await upstream.close();
    }
  });
});

describe('limits', () => {
  it('answers 429 with Retry-After over the per-key concurrency limit (RateLimitError)', async () => {
    const { key } = await platform.createUser('busy');
    const client = sdk('busy/inference', key);
    const calls = [1, 2, 3].map(() =>
      client.chat.completions.create({ model: 'slow', messages: [{ role: 'user', content: 'hi' }] }).then(
        () => 'ok',
        (error: unknown) => error,
      ),
    );
    const results = await Promise.all(calls);
    expect(results.filter((result) => result === 'ok')).toHaveLength(2);
    const limited = results.find((result) => result !== 'ok');
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimited = limited as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimited.message).toContain('Concurrency limit reached for requests');
    expect(rateLimited.headers.get('retry-after')).toBe('1');
    expect(await lastRecords('busy/inference', 3)).toContainEqual(expect.objectContaining({ status: 429, errorCode: 'RATE_LIMITED' }));
  });

  it('answers 429 over the per-project requests-per-minute limit', async () => {
    const project = freshProject();
    for (let i = 0; i < 3; i++) await ask('failover', project);
    const error = await ask('failover', project).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const retryAfter = Number((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(50);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another project is not affected.
    await expect(ask('failover', freshProject())).resolves.toBeDefined();
  });
});
