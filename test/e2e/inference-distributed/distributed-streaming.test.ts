import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { chatCompletionChunks, graphqlWsClient, operationResults } from '../../support/graphql-ws.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../support/platform.js';
import { compiledEntry } from '../../support/processes.js';

/**
 * Distributed topology: the inference subgraph runs as its own service (server/serve-subgraph.ts) and the
 * gateway process reaches it over HTTP for operations and over graphql-ws for the streaming subscription.
 */
const SECRET = 'distributed-test-internal-secret-0123456789';
let platform: TestPlatform;
let service: ChildProcess;
let upstream: StandInUpstream;

beforeAll(async () => {
  upstream = await startStandInUpstream({ name: 'remote', chunkDelayMs: 50 });
  const port = await freePort();
  platform = await startTestPlatform({
    env: { TRELLIS_SUBGRAPH_URLS: `inference=http://127.0.0.1:${port}/graphql`, TRELLIS_INTERNAL_SECRET: SECRET },
  });
  const root = path.resolve(import.meta.dirname, '../../..');
  service = spawn(process.execPath, [compiledEntry('server/serve-subgraph.ts'), 'inference'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: platform.databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      TRELLIS_INTERNAL_SECRET: SECRET,
      TRELLIS_DATA_DIR: `/tmp/trellis-test-data-${process.pid}-inference`,
      LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
  for (let waited = 0; ; waited += 100) {
    const ready = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (ready) break;
    if (waited > 30_000 || service.exitCode !== null) throw new Error('inference service did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { body } = await platform.graphql('mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id } }', {
    d: { id: 'remote-model', backend: 'OPENAI_COMPATIBLE', deployments: [{ baseUrl: upstream.baseUrl }] },
  });
  expect(body.errors).toBeUndefined();
}, 60_000);

afterAll(async () => {
  if (service && service.exitCode === null) {
    service.kill('SIGTERM');
    await once(service, 'exit');
  }
  await platform?.close();
  await upstream?.close();
});

const sdk = () => new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${platform.url}/inference/v1`, maxRetries: 0 });

it('serves plain and streamed completions from the inference service', async () => {
  const completion = await sdk().chat.completions.create({ model: 'remote-model', messages: [{ role: 'user', content: 'hi' }] });
  expect(completion.choices[0]!.message.content).toBe('Hello from the stand-in upstream.');

  const stream = await sdk().chat.completions.create({
    model: 'remote-model',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Hello from the stand-in upstream.');
  expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens: 6 });
});

it('answers errors before the first chunk with their status, across the process boundary', async () => {
  const error = await sdk()
    .chat.completions.create({ model: 'missing', messages: [{ role: 'user', content: 'hi' }], stream: true })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  expect((error as InstanceType<typeof OpenAI.NotFoundError>).param).toBe('model');
});

it('cancels the upstream when the client disconnects mid-stream', async () => {
  const before = upstream.abandoned;
  const controller = new AbortController();
  const response = await platform.fetch('/inference/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'remote-model', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    signal: controller.signal,
  });
  await response.body!.getReader().read();
  controller.abort();
  await expect.poll(() => upstream.abandoned, { timeout: 5_000 }).toBe(before + 1);
});

it('streams the remote subgraph\'s chatCompletionChunks over the gateway process\'s public /graphql/ws', async () => {
  const client = graphqlWsClient(platform.url, ADMIN_KEY);
  try {
    const got = await operationResults(client, chatCompletionChunks('hi', { model: 'remote-model', maxTokens: 64 }));
    expect(got.every((result) => result.errors === undefined)).toBe(true);
    const text = got.map((result) => result.data.chatCompletionChunks.choices[0]?.message?.content ?? '').join('');
    expect(text).toBe('Hello from the stand-in upstream.');
    // The service's errors keep their catalogue codes; variables that do not fit are the caller's fault.
    const [missing] = await operationResults(client, chatCompletionChunks('hi', { model: 'missing' }));
    expect(missing.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const [variables] = await operationResults(client, { ...chatCompletionChunks('hi'), variables: { request: 'not an object' } });
    expect(variables.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['$request'] });
  } finally {
    await client.dispose();
  }
});

it('cancels the upstream when a /graphql/ws client stops a remote subscription mid-stream', async () => {
  const before = upstream.abandoned;
  const client = graphqlWsClient(platform.url, ADMIN_KEY);
  try {
    await new Promise<void>((resolve, reject) => {
      const stop = client.subscribe(chatCompletionChunks('hi', { model: 'remote-model', maxTokens: 64 }), {
        next: () => {
          stop();
          resolve();
        },
        error: reject,
        complete: () => undefined,
      });
    });
    await expect.poll(() => upstream.abandoned, { timeout: 5_000 }).toBe(before + 1);
  } finally {
    await client.dispose();
  }
});
