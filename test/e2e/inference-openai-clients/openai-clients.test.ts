import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import type { InferenceServices } from '../../../subgraphs/inference/services.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../support/platform.js';
import { startEmbeddingsUpstream, upstreamVector, UPSTREAM_DIMENSIONS, type EmbeddingsUpstream } from './embeddings-upstream.js';

/**
 * Family B with the newest OpenAI-family clients, as their users set them up: the openai SDK (models.retrieve,
 * responses, embeddings, an endpoint this server lacks), the Vercel AI SDK's default provider (Responses API) and
 * LangChain's ChatOpenAI, against a running platform serving the shipped embedded model `trellis-tiny` and an
 * OpenAI-compatible embeddings server on loopback.
 */
const UPSTREAM_KEY = 'sk-embeddings-upstream-0123456789';
const MODEL = 'trellis-tiny';
const HIDDEN_SIZE = 128;

let platform: TestPlatform;
let upstream: EmbeddingsUpstream;
/** A chat server that streams its six words slowly: requests to it stay in flight for a while. */
let slowChat: StandInUpstream;
/** A chat server that stops sending after its first words: the stream fails after it started. */
let stalling: StandInUpstream;
let outsider: { key: string };
let baseURL: string;

const sdk = (apiKey = ADMIN_KEY, options: { project?: string } = {}) => new OpenAI({ apiKey, baseURL, maxRetries: 0, ...options });

async function usageRecords(entity: string, project: string) {
  await (platform.subgraphs.get('inference')!.services as InferenceServices).usage.flush();
  await platform.graphql('mutation($e: String!, $p: String!) { ensureProject(entity: $e, name: $p) { name } }', { e: entity, p: project });
  const { body } = await platform.graphql(
    `query($entity: String!, $name: String!) { project(entity: $entity, name: $name) { inferenceUsageRecords { nodes {
       model status errorCode stream promptTokens completionTokens totalTokens backend deployment } } } }`,
    { entity, name: project },
  );
  expect(body.errors).toBeUndefined();
  return body.data.project.inferenceUsageRecords.nodes as Record<string, unknown>[];
}

const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));

beforeAll(async () => {
  upstream = await startEmbeddingsUpstream();
  slowChat = await startStandInUpstream({ name: 'slow', chunkDelayMs: 300 });
  stalling = await startStandInUpstream({ name: 'stalling', mode: 'stream-then-hang' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-models-'));
  const modelsFile = path.join(dir, 'models.json');
  await writeFile(
    modelsFile,
    JSON.stringify({
      models: [
        { id: 'upstream-embedder', backend: 'openai-compatible', embeddings: true, deployments: [{ base_url: upstream.baseUrl, api_key: UPSTREAM_KEY, model: 'bge-small' }] },
        { id: 'upstream-chat-only', backend: 'openai-compatible', deployments: [{ base_url: upstream.baseUrl }] },
        { id: 'research-embedder', backend: 'embedded', root: MODEL, teams: ['research'] },
        { id: 'stand-in-chat', backend: 'openai-compatible', deployments: [{ base_url: slowChat.baseUrl }] },
        { id: 'acme/tiny', backend: 'embedded', root: MODEL, owned_by: 'acme' },
        { id: 'stalling-chat', backend: 'openai-compatible', deployments: [{ base_url: stalling.baseUrl, timeout_ms: 300 }] },
      ],
    }),
  );
  // One request at a time per project: shows that Responses and chat are admitted by the same limiter.
  platform = await startTestPlatform({ env: { TRELLIS_MODELS_FILE: modelsFile, TRELLIS_INFERENCE_PROJECT_CONCURRENCY: '1' } });
  baseURL = `${platform.url}/inference/v1`;
  outsider = await platform.createUser('outsider');
}, 120_000);

afterAll(async () => {
  await platform?.close();
  await upstream?.close();
  await slowChat?.close();
  await stalling?.close();
});

describe('openai: GET /models/{id}', () => {
  it('retrieves a model the caller may use', async () => {
    const model = await sdk().models.retrieve(MODEL);
    expect(model).toEqual({ id: MODEL, object: 'model', created: expect.any(Number), owned_by: 'trellis', root: MODEL });
    // An id with a slash: the SDK escapes it into one path segment.
    expect(await sdk().models.retrieve('acme/tiny')).toMatchObject({ id: 'acme/tiny', owned_by: 'acme', root: MODEL });
  });

  it('answers OpenAI 404 model_not_found for an unknown model and for one of another team alike', async () => {
    for (const id of ['no-such-model', 'research-embedder']) {
      const error = await sdk(outsider.key).models.retrieve(id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      const apiError = error as InstanceType<typeof OpenAI.NotFoundError>;
      expect(apiError.error).toEqual({
        message: `The model '${id}' does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        param: 'model',
        code: 'model_not_found',
      });
    }
  });
});

describe('developer messages', () => {
  it('are accepted by the embedded model and formatted as system messages', async () => {
    const ask = (role: 'developer' | 'system') =>
      sdk().chat.completions.create({
        model: MODEL,
        messages: [
          { role, content: 'You answer in one word.' },
          { role: 'user', content: 'Name a colour' },
        ],
        seed: 3,
        temperature: 0.7,
        max_tokens: 12,
      });
    const developer = await ask('developer');
    const system = await ask('system');
    expect(developer.choices[0]!.message.content).toBe(system.choices[0]!.message.content);
    expect(developer.usage).toEqual(system.usage);
  });
});

describe('openai: POST /responses', () => {
  it('answers a string input with a Response object and its usage, counted as usage', async () => {
    const response = await sdk(ADMIN_KEY, { project: 'trellis/responses' }).responses.create({
      model: MODEL,
      input: 'What is the capital of France?',
      instructions: 'Answer briefly.',
      max_output_tokens: 8,
      temperature: 0.5,
      top_p: 0.9,
    });
    expect(response).toMatchObject({
      object: 'response',
      model: MODEL,
      instructions: 'Answer briefly.',
      max_output_tokens: 8,
      temperature: 0.5,
      top_p: 0.9,
      store: false,
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', annotations: [] }] }],
    });
    expect(response.id).toMatch(/^resp_/);
    expect(['completed', 'incomplete']).toContain(response.status);
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage!.output_tokens).toBeLessThanOrEqual(8);
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
    const records = await usageRecords('trellis', 'responses');
    expect(records[0]).toMatchObject({
      model: MODEL,
      status: 200,
      stream: false,
      backend: 'embedded',
      promptTokens: response.usage!.input_tokens,
      completionTokens: response.usage!.output_tokens,
    });
  });

  it('takes a list of messages with input_text parts and every role', async () => {
    const response = await sdk().responses.create({
      model: MODEL,
      input: [
        { role: 'system', content: 'Be kind.' },
        { role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'Hello' }] },
        { role: 'assistant', content: 'Hi!' },
        { type: 'message', role: 'user', content: 'How are you?' },
      ],
      max_output_tokens: 4,
      temperature: 0,
    });
    // Every message reached the model: <|bos|>, each turn as role token + text + <|end|>, then <|assistant|>.
    expect(response.usage!.input_tokens).toBe(1 + (1 + 8 + 1) + (1 + 9 + 1) + (1 + 5 + 1) + (1 + 3 + 1) + (1 + 12 + 1) + 1);
    expect(response.usage!.output_tokens).toBeLessThanOrEqual(4);
    const cut = response.usage!.output_tokens === 4 && response.status === 'incomplete';
    expect(response.incomplete_details).toEqual(cut ? { reason: 'max_output_tokens' } : null);
  });

  it('streams the documented response.* events, ending with the usage', async () => {
    const stream = await sdk(ADMIN_KEY, { project: 'trellis/responses' }).responses.create({
      model: MODEL,
      // Greedy, and a long answer: the model counts until the token limit stops it.
      input: 'Count from 3 to 9.',
      max_output_tokens: 10,
      temperature: 0,
      stream: true,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.type);
    const deltas = types.filter((type) => type === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThan(0);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(deltas).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.incomplete',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    expect(text).toMatch(/^3, 4, 5, 6/);
    const last = events.at(-1) as OpenAI.Responses.ResponseIncompleteEvent;
    expect(last.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(last.response.output).toMatchObject([{ type: 'message', status: 'incomplete', content: [{ type: 'output_text', text }] }]);
    expect(last.response.usage).toMatchObject({ output_tokens: 10, total_tokens: last.response.usage!.input_tokens + 10 });
    const records = await usageRecords('trellis', 'responses');
    expect(records[0]).toMatchObject({ status: 200, stream: true, completionTokens: 10, promptTokens: last.response.usage!.input_tokens });
  });

  it('refuses features beyond a text conversation with a 400 naming them, recorded as usage', async () => {
    const refused: [Record<string, unknown>, string][] = [
      [{ tools: [{ type: 'function', name: 'lookup', parameters: {} }] }, 'tools'],
      [{ previous_response_id: 'resp_123' }, 'previous_response_id'],
      [{ store: true }, 'store'],
      [{ text: { format: { type: 'json_object' } } }, 'text'],
      [{ input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }] }, 'input.0.type'],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x' }] }] }, 'input.0.content.0'],
    ];
    for (const [body, param] of refused) {
      const error = await sdk(ADMIN_KEY, { project: 'trellis/refused' })
        .responses.create({ model: MODEL, input: 'x', ...body } as never)
        .catch((e: unknown) => e);
      expect(error, param).toBeInstanceOf(OpenAI.BadRequestError);
      const apiError = error as InstanceType<typeof OpenAI.BadRequestError>;
      expect(apiError.param).toBe(param);
      expect(apiError.message).toMatch(/not support|accepts only/);
    }
    const records = await usageRecords('trellis', 'refused');
    expect(records).toHaveLength(refused.length);
    expect(records.every((record) => record.status === 400 && record.model === MODEL)).toBe(true);
  });

  it('serves OpenAI-compatible models too, and is admitted by the same limiter as chat (one request at a time per project)', async () => {
    const client = sdk(ADMIN_KEY, { project: 'trellis/limited' });
    const holding = await client.responses.create({ model: 'stand-in-chat', input: 'Hello', stream: true });
    const events = [];
    for await (const event of holding) {
      events.push(event);
      if (events.length === 1) {
        const chat = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
        expect(chat).toBeInstanceOf(OpenAI.RateLimitError);
      }
    }
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.type).toBe('response.completed');
    expect(done.response.output).toMatchObject([{ content: [{ text: 'Hello from the stand-in upstream.' }] }]);
    expect(slowChat.requests.at(-1)!.body).toMatchObject({ messages: [{ role: 'user', content: 'Hello' }], stream: true });

    const chatHolding = await client.chat.completions.create({ model: 'stand-in-chat', messages: [{ role: 'user', content: 'Go on' }], stream: true });
    const chatIterator = chatHolding[Symbol.asyncIterator]();
    await chatIterator.next();
    const response = await client.responses.create({ model: MODEL, input: 'x' }).catch((e: unknown) => e);
    expect(response).toBeInstanceOf(OpenAI.RateLimitError);
    chatHolding.controller.abort();
    await chatIterator.return?.();
    const records = await usageRecords('trellis', 'limited');
    expect(records.filter((record) => record.status === 429).map((record) => record.model).sort()).toEqual([MODEL, MODEL]);
    expect(records).toContainEqual(expect.objectContaining({ model: 'stand-in-chat', status: 200, stream: true, completionTokens: 6 }));
  });
});

describe('a Responses stream that fails after it started', () => {
  it('ends with an error event: numbered like the others, carrying the OpenAI error (the openai SDK throws it)', async () => {
    const raw = await platform.fetch('/inference/v1/responses', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'stalling-chat', input: 'x', stream: true }),
    });
    expect(raw.status).toBe(200);
    const events = (await raw.text()).split('\n\n').filter(Boolean).map((event) => JSON.parse(event.replace(/^data: /, '')));
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'error',
    ]);
    expect(events.at(-1)).toEqual({
      type: 'error',
      sequence_number: 5,
      error: { message: 'The model server sent no next byte within 300 ms', type: 'server_error', param: null, code: 'upstream_timeout' },
    });

    const stream = await sdk().responses.create({ model: 'stalling-chat', input: 'x', stream: true });
    const failure = await (async () => {
      for await (const _event of stream) {
        // until it fails
      }
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_timeout');
  });

  it('reaches the AI SDK as an error part', async () => {
    const result = streamText({ model: createOpenAI({ baseURL, apiKey: ADMIN_KEY })('stalling-chat'), prompt: 'x', onError: () => undefined });
    const parts = [];
    for await (const part of result.fullStream) parts.push(part);
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => (part as { text: string }).text)).toEqual(['Hello']);
    // The provider's own error (not a chunk it failed to parse), with OpenAI's code and the status it stands for.
    const failure = parts.find((part) => part.type === 'error') as { error: { code?: string; statusCode?: number } } | undefined;
    expect(failure?.error).toMatchObject({ code: 'upstream_timeout', statusCode: 504 });
  });
});

describe('Vercel AI SDK: the default OpenAI provider (Responses API)', () => {
  const model = () => createOpenAI({ baseURL, apiKey: ADMIN_KEY })(MODEL);

  it('generateText', async () => {
    const result = await generateText({ model: model(), prompt: 'Count from 3 to 9.', maxOutputTokens: 10, temperature: 0 });
    expect(result.text).toBe('3, 4, 5, 6');
    expect(result.usage.outputTokens).toBe(10);
    expect(result.usage.totalTokens).toBe(result.usage.inputTokens! + 10);
    expect(result.finishReason).toBe('length');
  });

  it('streamText', async () => {
    const result = streamText({
      model: model(),
      prompt: 'Count from 3 to 9.',
      maxOutputTokens: 10,
      temperature: 0,
    });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join('')).toMatch(/^3, 4, 5, 6/);
    expect(parts.join('')).toBe(await result.text);
    expect((await result.usage).outputTokens).toBe(10);
    expect(await result.finishReason).toBe('length');
  });
});

describe('LangChain: ChatOpenAI', () => {
  const chat = (fields: { useResponsesApi?: boolean } = {}) =>
    new ChatOpenAI({ model: MODEL, apiKey: ADMIN_KEY, configuration: { baseURL }, maxRetries: 0, maxTokens: 12, temperature: 0, ...fields });

  it('invoke', async () => {
    const message = await chat().invoke([['human', 'Count from 3 to 9.']]);
    expect(message.content).toBe('3, 4, 5, 6, ');
    expect(message.usage_metadata?.output_tokens).toBe(12);
  });

  it('stream', async () => {
    const chunks = [];
    for await (const chunk of await chat().stream('Count from 3 to 9.')) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.content).join('');
    expect(chunks.length).toBeGreaterThan(1);
    expect(text).toMatch(/^3, 4, 5, 6/);
  });

  it('invoke and stream over the Responses API (useResponsesApi)', async () => {
    const message = await chat({ useResponsesApi: true }).invoke('Count from 3 to 9.');
    expect(message.text).toMatch(/^3, 4, 5, 6/);
    const chunks = [];
    for await (const chunk of await chat({ useResponsesApi: true }).stream('Count from 3 to 9.')) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(message.text);
  });
});

describe('openai: POST /embeddings', () => {
  it('embeds with the embedded model: unit vectors of its hidden size, float and base64 alike, counted as usage', async () => {
    const client = sdk(ADMIN_KEY, { project: 'trellis/embeddings' });
    // The SDK asks for base64 unless told otherwise, and decodes it.
    const decoded = await client.embeddings.create({ model: MODEL, input: ['the cat sat', 'on the mat'] });
    expect(decoded).toMatchObject({ object: 'list', model: MODEL, usage: { prompt_tokens: 23, total_tokens: 23 } });
    expect(decoded.data.map((item) => [item.object, item.index, item.embedding.length])).toEqual([
      ['embedding', 0, HIDDEN_SIZE],
      ['embedding', 1, HIDDEN_SIZE],
    ]);
    for (const item of decoded.data) expect(norm(item.embedding)).toBeCloseTo(1, 5);
    const floats = await client.embeddings.create({ model: MODEL, input: 'the cat sat', encoding_format: 'float' });
    expect(floats.data[0]!.embedding.map((value) => Math.fround(value))).toEqual(decoded.data[0]!.embedding);
    expect(floats.usage.prompt_tokens).toBe(12);
    // Token ids: the same vector as the text they spell (<|bos|> 256, then the bytes).
    const tokens = await client.embeddings.create({ model: MODEL, input: [[256, ...Buffer.from('the cat sat')]], encoding_format: 'float' });
    expect(tokens.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
    const records = await usageRecords('trellis', 'embeddings');
    expect(records.slice(0, 3)).toMatchObject([
      { model: MODEL, status: 200, promptTokens: 12, completionTokens: 0, totalTokens: 12, backend: 'embedded' },
      { status: 200, promptTokens: 12 },
      { status: 200, promptTokens: 23 },
    ]);
  });

  it('refuses dimensions the embedded model cannot truncate to, and models that serve no embeddings', async () => {
    const dimensions = await sdk().embeddings.create({ model: MODEL, input: 'x', dimensions: 16 }).catch((e: unknown) => e);
    expect(dimensions).toBeInstanceOf(OpenAI.BadRequestError);
    expect((dimensions as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('dimensions');
    expect((dimensions as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/cannot truncate/);
    const chatOnly = await sdk().embeddings.create({ model: 'upstream-chat-only', input: 'x' }).catch((e: unknown) => e);
    expect(chatOnly).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chatOnly as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("Model 'upstream-chat-only' does not serve embeddings");
    const hidden = await sdk(outsider.key).embeddings.create({ model: 'research-embedder', input: 'x' }).catch((e: unknown) => e);
    expect(hidden).toBeInstanceOf(OpenAI.NotFoundError);
    expect((hidden as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('passes requests through to an OpenAI-compatible upstream that offers embeddings', async () => {
    const before = upstream.requests.length;
    const result = await sdk(ADMIN_KEY, { project: 'trellis/upstream-embeddings' }).embeddings.create({
      model: 'upstream-embedder',
      input: ['one two', 'three'],
      dimensions: 4,
    });
    expect(result.model).toBe('upstream-embedder');
    expect(result.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    expect(result.data.map((item) => item.embedding)).toEqual(
      [upstreamVector('one two', 4), upstreamVector('three', 4)].map((vector) => vector.map((value) => Math.fround(value))),
    );
    const received = upstream.requests.slice(before);
    expect(received).toEqual([
      { body: { model: 'bge-small', input: ['one two', 'three'], dimensions: 4, encoding_format: 'base64' }, authorization: `Bearer ${UPSTREAM_KEY}` },
    ]);
    const floats = await sdk().embeddings.create({ model: 'upstream-embedder', input: 'four', encoding_format: 'float' });
    expect(floats.data[0]!.embedding).toEqual(upstreamVector('four', UPSTREAM_DIMENSIONS));
    const records = await usageRecords('trellis', 'upstream-embeddings');
    expect(records).toMatchObject([{ model: 'upstream-embedder', status: 200, promptTokens: 3, backend: 'openai-compatible', deployment: 'upstream-embedder#0' }]);
  });
});

describe('GraphQL: the operations behind the routes', () => {
  it('inferenceModel answers one visible model, NOT_FOUND otherwise', async () => {
    const query = 'query($id: String!) { inferenceModel(id: $id) { id ownedBy root embeddings } }';
    const found = await platform.graphql(query, { id: 'upstream-embedder' });
    expect(found.body).toEqual({ data: { inferenceModel: { id: 'upstream-embedder', ownedBy: 'trellis', root: 'bge-small', embeddings: true } } });
    const hidden = await platform.graphql(query, { id: 'research-embedder' }, outsider.key);
    expect(hidden.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'model' });
  });

  it('createEmbeddings takes the typed input and answers numbers, as REST does', async () => {
    const mutation = `mutation($request: EmbeddingsRequestInput!) { createEmbeddings(request: $request, project: "trellis/graphql") {
      model data { index embedding } usage { promptTokens totalTokens } } }`;
    const { body } = await platform.graphql(mutation, { request: { model: MODEL, input: ['the cat sat'], encodingFormat: 'BASE64' } });
    expect(body.errors).toBeUndefined();
    const rest = await sdk().embeddings.create({ model: MODEL, input: 'the cat sat' });
    expect(body.data.createEmbeddings).toEqual({ model: MODEL, data: [{ index: 0, embedding: rest.data[0]!.embedding }], usage: { promptTokens: 12, totalTokens: 12 } });
    const refused = await platform.graphql(mutation, { request: { model: MODEL, input: 'x', dimensions: 3 } });
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', param: 'dimensions' });
  });
});

describe('/openapi.json', () => {
  it('documents the new routes with their request schemas', async () => {
    const document = (await (await platform.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, any>> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/inference/v1'))).toEqual([
      '/inference/v1/models',
      '/inference/v1/models/{model}',
      '/inference/v1/chat/completions',
      '/inference/v1/responses',
      '/inference/v1/embeddings',
    ]);
    expect(document.paths['/inference/v1/responses']!.post.requestBody.content['application/json'].schema.properties).toHaveProperty('input');
    expect(document.paths['/inference/v1/embeddings']!.post.requestBody.content['application/json'].schema.properties).toHaveProperty('encoding_format');
  });
});

describe('endpoints this server does not implement', () => {
  it('answer OpenAI 404 invalid_request_error saying so, to the openai SDK and to LangChain', async () => {
    const completion = await sdk().completions.create({ model: MODEL, prompt: 'Once upon a time' }).catch((e: unknown) => e);
    expect(completion).toBeInstanceOf(OpenAI.NotFoundError);
    const apiError = completion as InstanceType<typeof OpenAI.NotFoundError>;
    expect(apiError.type).toBe('invalid_request_error');
    expect(apiError.message).toContain('POST /inference/v1/completions is not supported by this server');
    for (const [method, url] of [
      ['POST', '/audio/speech'],
      ['POST', '/images/generations'],
      ['GET', '/files'],
      ['POST', '/batches'],
      ['POST', '/fine_tuning/jobs'],
      ['GET', '/chat/completions'],
    ] as const) {
      const response = await platform.fetch(`/inference/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: unknown }).error).toMatchObject({
        message: expect.stringContaining(`${method} /inference/v1${url} is not supported by this server`),
        type: 'invalid_request_error',
        param: null,
      });
    }
    // LangChain names every 404 MODEL_NOT_FOUND; the message it carries is ours.
    const langchain = await new ChatOpenAI({ model: MODEL, apiKey: ADMIN_KEY, configuration: { baseURL: `${baseURL}/nowhere` }, maxRetries: 0 })
      .invoke('x')
      .catch((e: unknown) => e);
    expect((langchain as Error).message).toContain('is not supported by this server');
  });
});
