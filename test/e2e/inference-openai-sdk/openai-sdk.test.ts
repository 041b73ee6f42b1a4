import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import type { InferenceServices } from '../../../subgraphs/inference/services.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../support/platform.js';

/**
 * Family B through the real OpenAI SDK against a running platform whose catalog (TRELLIS_MODELS_FILE) points at
 * two OpenAI-compatible servers on loopback.
 */
const UPSTREAM_KEY = 'sk-upstream-secret-never-shown-0123';

let platform: TestPlatform;
let upstreamA: StandInUpstream;
let upstreamB: StandInUpstream;
let member: { key: string };
let outsider: { key: string };

const sdk = (apiKey: string, options: { project?: string } = {}) =>
  new OpenAI({ apiKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, ...options });

/**
 * Usage is recorded under project names whether or not identity has the project; Project.inferenceUsage* are
 * reached through identity's `project` query, so the project is created first (as a dashboard user would have).
 */
async function usageRecords(entity: string, project: string) {
  await (platform.subgraphs.get('inference')!.services as InferenceServices).usage.flush();
  await platform.graphql('mutation($e: String!, $p: String!) { ensureProject(entity: $e, name: $p) { name } }', { e: entity, p: project });
  const { body } = await platform.graphql(
    `query($entity: String!, $name: String!) { project(entity: $entity, name: $name) { inferenceUsageRecords { nodes {
       model status errorCode stream promptTokens completionTokens totalTokens apiKeyId deployment attempts endUser } } } }`,
    { entity, name: project },
  );
  return body;
}

beforeAll(async () => {
  upstreamA = await startStandInUpstream({ name: 'a', apiKey: UPSTREAM_KEY });
  upstreamB = await startStandInUpstream({ name: 'b', apiKey: UPSTREAM_KEY });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-models-'));
  const modelsFile = path.join(dir, 'models.json');
  await writeFile(
    modelsFile,
    JSON.stringify({
      models: [
        {
          id: 'stand-in-chat',
          backend: 'openai-compatible',
          root: 'stand-in/llama-3-8b',
          owned_by: 'stand-in-org',
          deployments: [
            { base_url: upstreamA.baseUrl, api_key_env: 'STAND_IN_KEY' },
            { base_url: upstreamB.baseUrl, api_key: UPSTREAM_KEY },
          ],
        },
        { id: 'research-only', backend: 'openai-compatible', teams: ['research'], deployments: [{ base_url: upstreamA.baseUrl, api_key: UPSTREAM_KEY }] },
      ],
    }),
  );
  platform = await startTestPlatform({ env: { TRELLIS_MODELS_FILE: modelsFile, STAND_IN_KEY: UPSTREAM_KEY } });
  member = await platform.createUser('researcher', { research: 'MEMBER' });
  outsider = await platform.createUser('outsider');
});

afterAll(async () => {
  await platform?.close();
  await upstreamA?.close();
  await upstreamB?.close();
});

describe('GET /models', () => {
  it('lists the models the caller may use, with owned_by and root', async () => {
    const models = await sdk(outsider.key).models.list();
    // The shipped embedded model is everyone's; the configured upstream model too; the team-reserved one is not.
    expect(models.data).toEqual([
      { id: 'stand-in-chat', object: 'model', created: expect.any(Number), owned_by: 'stand-in-org', root: 'stand-in/llama-3-8b' },
      { id: 'trellis-tiny', object: 'model', created: expect.any(Number), owned_by: 'trellis', root: 'trellis-tiny' },
    ]);
    const memberModels = (await sdk(member.key).models.list()).data.map((model) => model.id).sort();
    expect(memberModels).toEqual(['research-only', 'stand-in-chat', 'trellis-tiny']);
    const researchOnly = (await sdk(member.key).models.list()).data.find((model) => model.id === 'research-only');
    // Reserved for one team: that team owns it; no root configured: the model is its own root.
    expect(researchOnly).toMatchObject({ owned_by: 'research', root: 'research-only' });
  });
});

describe('POST /chat/completions', () => {
  it('answers a plain completion and passes parameters and the configured credential upstream', async () => {
    const before = upstreamA.requests.length + upstreamB.requests.length;
    const completion = await sdk(ADMIN_KEY).chat.completions.create({
      model: 'stand-in-chat',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 16,
      stop: ['\n'],
      seed: 7,
      user: 'end-user-42',
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
      response_format: { type: 'text' },
    });
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'stand-in-chat',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the stand-in upstream.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
    });
    const received = [...upstreamA.requests, ...upstreamB.requests].slice(before);
    expect(received).toHaveLength(1);
    expect(received[0]!.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(received[0]!.body).toMatchObject({
      model: 'stand-in/llama-3-8b',
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 16,
      stop: ['\n'],
      seed: 7,
      user: 'end-user-42',
      tools: [{ type: 'function', function: { name: 'lookup' } }],
      response_format: { type: 'text' },
      stream: false,
    });
  });

  it('streams chunks ending the SSE with [DONE], and adds the usage chunk only when asked', async () => {
    const stream = await sdk(ADMIN_KEY).chat.completions.create({
      model: 'stand-in-chat',
      messages: [{ role: 'user', content: 'Stream please' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Hello from the stand-in upstream.');
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'stand-in-chat')).toBe(true);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);

    const withUsage = await sdk(ADMIN_KEY).chat.completions.create({
      model: 'stand-in-chat',
      messages: [{ role: 'user', content: 'Stream please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const usageChunks = [];
    for await (const chunk of withUsage) usageChunks.push(chunk);
    expect(usageChunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 6, total_tokens: 8 } });

    const raw = await platform.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'stand-in-chat', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const text = await raw.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(text.split('\n\n').filter(Boolean).every((event) => event.startsWith('data: '))).toBe(true);
  });

  it('balances requests over both deployments', async () => {
    const beforeA = upstreamA.requests.length;
    const beforeB = upstreamB.requests.length;
    const client = sdk(ADMIN_KEY);
    for (let i = 0; i < 6; i++) {
      await client.chat.completions.create({ model: 'stand-in-chat', messages: [{ role: 'user', content: 'x' }] });
    }
    expect(upstreamA.requests.length - beforeA).toBe(3);
    expect(upstreamB.requests.length - beforeB).toBe(3);
  });

  it('records usage per project: the SDK project option, Compat-Project, and the default project', async () => {
    await sdk(ADMIN_KEY, { project: 'trellis/sdk-project' }).chat.completions.create({
      model: 'stand-in-chat',
      messages: [{ role: 'user', content: 'one two three' }],
      user: 'someone',
    });
    const streamed = await sdk(ADMIN_KEY, { project: 'trellis/sdk-project' }).chat.completions.create({
      model: 'stand-in-chat',
      messages: [{ role: 'user', content: 'four' }],
      stream: true,
    });
    for await (const _chunk of streamed) {
      // drain
    }
    const compat = await platform.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', 'compat-project': 'trellis/compat-project' },
      body: JSON.stringify({ model: 'stand-in-chat', messages: [{ role: 'user', content: 'five six' }] }),
    });
    expect(compat.status).toBe(200);

    const sdkProject = await usageRecords('trellis', 'sdk-project');
    expect(sdkProject.errors).toBeUndefined();
    const records = sdkProject.data.project.inferenceUsageRecords.nodes;
    expect(records).toHaveLength(2);
    // Newest first: the stream, then the plain request; token counts come from the upstream's usage.
    expect(records[0]).toMatchObject({ model: 'stand-in-chat', status: 200, stream: true, promptTokens: 1, completionTokens: 6, totalTokens: 7 });
    expect(records[1]).toMatchObject({ status: 200, stream: false, promptTokens: 3, completionTokens: 6, totalTokens: 9, endUser: 'someone', attempts: 1 });
    expect(records[1].apiKeyId).toEqual(expect.any(String));
    expect(records[1].deployment).toMatch(/^stand-in-chat#[01]$/);

    const compatRecords = (await usageRecords('trellis', 'compat-project')).data.project.inferenceUsageRecords.nodes;
    expect(compatRecords).toMatchObject([{ status: 200, promptTokens: 2 }]);

    // Without a header: the caller's default entity, project "inference".
    const defaults = (await usageRecords('trellis', 'inference')).data.project.inferenceUsageRecords.nodes;
    expect(defaults.length).toBeGreaterThan(0);

    const team = await platform.graphql(
      `{ team(name: "trellis") { inferenceUsage(groupBy: [PROJECT]) { project requests promptTokens completionTokens totalTokens errors } } }`,
    );
    const byProject = Object.fromEntries(team.body.data.team.inferenceUsage.map((bucket: any) => [bucket.project, bucket]));
    expect(byProject['sdk-project']).toMatchObject({ requests: 2, promptTokens: 4, completionTokens: 12, totalTokens: 16, errors: 0 });
    expect(byProject['compat-project']).toMatchObject({ requests: 1, promptTokens: 2 });
  });
});

describe('errors come out as the SDK typed errors', () => {
  it('401 for a bad key: AuthenticationError', async () => {
    const error = await sdk('trl_not-a-real-key-000000000000000000000').models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
  });

  it('404 for an unknown model and for a model of another team, revealing nothing: NotFoundError', async () => {
    for (const model of ['no-such-model', 'research-only']) {
      const error = await sdk(outsider.key)
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      const apiError = error as InstanceType<typeof OpenAI.NotFoundError>;
      expect(apiError.message).toContain(`The model '${model}' does not exist or you do not have access to it.`);
      expect(apiError.param).toBe('model');
      // OpenAI's own shape for a model the caller cannot use.
      expect(apiError.type).toBe('invalid_request_error');
      expect(apiError.code).toBe('model_not_found');
      expect(JSON.stringify(apiError.error)).not.toContain('127.0.0.1');
    }
    const records = (await usageRecords('outsider', 'inference')).data.project.inferenceUsageRecords.nodes;
    expect(records.slice(0, 2)).toMatchObject([
      { model: 'research-only', status: 404, errorCode: 'NOT_FOUND', attempts: 0 },
      { model: 'no-such-model', status: 404, errorCode: 'NOT_FOUND' },
    ]);
  });

  it('400 naming the field for malformed messages: BadRequestError, recorded', async () => {
    const error = await sdk(outsider.key)
      .chat.completions.create({ model: 'stand-in-chat', messages: [{ role: 'wizard', content: 'x' }] } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages.0.role');
    const missing = await platform.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${outsider.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'stand-in-chat' }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: { message: 'Field required: messages', type: 'invalid_request_error', param: 'messages', code: 'invalid_request' },
    });
    const records = (await usageRecords('outsider', 'inference')).data.project.inferenceUsageRecords.nodes;
    expect(records[0]).toMatchObject({ model: 'stand-in-chat', status: 400, errorCode: 'VALIDATION_FAILED' });
  });

  it('403 for a project of a team the caller is not in: PermissionDeniedError', async () => {
    const error = await sdk(outsider.key, { project: 'trellis/default' })
      .chat.completions.create({ model: 'stand-in-chat', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    // Recorded against the caller's own default project, never against the project they may not use.
    const records = (await usageRecords('outsider', 'inference')).data.project.inferenceUsageRecords.nodes;
    expect(records[0]).toMatchObject({ status: 403, errorCode: 'FORBIDDEN' });
    const trellisDefault = (await usageRecords('trellis', 'default')).data.project.inferenceUsageRecords.nodes;
    expect(trellisDefault).toEqual([]);
  });

  it('400 when the upstream rejects a parameter, with the upstream message and param', async () => {
    const error = await sdk(ADMIN_KEY)
      .chat.completions.create({ model: 'stand-in-chat', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'yaml' } } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('response_format.type yaml is not supported');
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('response_format');
    const raw = await platform.fetch('/inference/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'stand-in-chat', messages: [{ role: 'user', content: 'x' }], temperature: 5 }),
    });
    // Our own schema bounds temperature first (OpenAI's range is 0..2).
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { param: string } }).error.param).toBe('temperature');
  });
});

describe('catalog administration', () => {
  it('registers a model through GraphQL (admins only) and never shows its credential', async () => {
    const mutation = `mutation($definition: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $definition) {
      id backend root ownedBy source deployments { label baseUrl model hasApiKey timeoutMs health } } }`;
    const definition = {
      id: 'registered-chat',
      backend: 'OPENAI_COMPATIBLE',
      deployments: [{ baseUrl: upstreamB.baseUrl, apiKey: UPSTREAM_KEY, model: 'b-model', timeoutMs: 5000 }],
    };
    const denied = await platform.graphql(mutation, { definition }, member.key);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');

    // The models file's rules, reported at the typed input's GraphQL path.
    const invalid = await platform.graphql(mutation, { definition: { ...definition, deployments: [{ baseUrl: 'ftp://x' }] } });
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', param: 'definition.deployments.0.baseUrl', field: ['definition', 'deployments', 0, 'baseUrl'] });

    const created = await platform.graphql(mutation, { definition });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.registerInferenceModel).toEqual({
      id: 'registered-chat',
      backend: 'openai-compatible',
      root: 'b-model',
      ownedBy: 'trellis',
      source: 'api',
      deployments: [{ label: 'registered-chat#0', baseUrl: upstreamB.baseUrl, model: 'b-model', hasApiKey: true, timeoutMs: 5000, health: 'HEALTHY' }],
    });
    expect(JSON.stringify(created.body)).not.toContain(UPSTREAM_KEY);

    const completion = await sdk(member.key).chat.completions.create({ model: 'registered-chat', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.model).toBe('registered-chat');
    expect(upstreamB.requests.at(-1)!.body.model).toBe('b-model');

    const listed = await platform.graphql('{ inferenceModels { id deployments { hasApiKey } } }', {}, member.key);
    expect(listed.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const deleted = await platform.graphql('mutation { deleteInferenceModel(id: "registered-chat") }');
    expect(deleted.body.data.deleteInferenceModel).toBe(true);
    const gone = await sdk(member.key)
      .chat.completions.create({ model: 'registered-chat', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
