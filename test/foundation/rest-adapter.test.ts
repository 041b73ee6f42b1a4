import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../../rest-adapter/routes/index.js';
import { defineRoute, FAMILY_MOUNTS } from '../../rest-adapter/route.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

/**
 * The REST adapter's generic behaviour, exercised through one fixture route per family that maps onto a real
 * gateway operation (identity's ensureProject), so every error path runs the real stack and the real database.
 */
const families = ['tracing', 'inference', 'training'] as const;
const fixtureRoutes = families.map((family) =>
  defineRoute({
    family,
    method: 'POST',
    path: '/_fixture/projects',
    summary: 'test fixture',
    bodyLimit: 2048,
    schema: {
      body: Type.Object(
        { entity: Type.String(), name: Type.String({ minLength: 1 }), retries: Type.Optional(Type.Integer({ minimum: 0 })) },
        { additionalProperties: false },
      ),
    },
    operation: 'mutation Fixture($entity: String!, $name: String!) { ensureProject(entity: $entity, name: $name) { fullName } }',
    variables: ({ body }) => ({ entity: body.entity, name: body.name }),
    response: (data) => ({ project: data.ensureProject.fullName }),
  }),
);

/** A read of a project, run on the tracing subgraph as its Project entity reference, and the same through the gateway. */
const readRoutes = (['subgraph', 'gateway'] as const).map((via) =>
  defineRoute({
    family: 'tracing',
    method: 'POST',
    path: `/_fixture/read-${via}`,
    summary: 'test fixture',
    schema: { body: Type.Object({ entity: Type.String(), name: Type.String() }) },
    operation: 'query FixtureRead($entity: String!, $project: String!) { project(entity: $entity, name: $project) { entity name callCount } }',
    ...(via === 'subgraph' ? { subgraph: 'tracing' } : {}),
    readsProject: ({ body }) => ({ entity: body.entity, project: body.name }),
    variables: ({ body }) => ({ entity: body.entity, project: body.name }),
    response: (data) => data.project,
  }),
);

let platform: TestPlatform;
let outsiderKey: string;

beforeAll(async () => {
  platform = await startTestPlatform({ routes: [...ALL_ROUTES, ...fixtureRoutes, ...readRoutes], workers: false });
  outsiderKey = (await platform.createUser('outsider')).key;
});
afterAll(() => platform?.close());

const url = (family: (typeof families)[number]) => `${FAMILY_MOUNTS[family]}/_fixture/projects`;

async function post(family: (typeof families)[number], body: string, headers: Record<string, string> = {}) {
  const response = await platform.fetch(url(family), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}`, ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function projectExists(name: string): Promise<boolean> {
  const { body } = await platform.graphql('query($n: String!) { project(entity: "trellis", name: $n) { name } }', { n: name });
  return body.data.project !== null;
}

describe('REST adapter', () => {
  it('maps a valid request onto the gateway operation', async () => {
    const response = await post('tracing', JSON.stringify({ entity: 'trellis', name: 'made-by-rest' }));
    expect(response).toMatchObject({ status: 200, body: { project: 'trellis/made-by-rest' } });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await projectExists('made-by-rest')).toBe(true);
  });

  it('answers malformed JSON in each family\'s shape and writes nothing', async () => {
    const broken = '{"entity": "trellis", "name": "broken"';
    const tracing = await post('tracing', broken);
    expect(tracing.status).toBe(422);
    expect(tracing.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    const inference = await post('inference', broken);
    expect(inference.status).toBe(400);
    expect(inference.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(inference.body.error.message).toMatch(/could not parse the JSON body/);
    const training = await post('training', broken);
    expect(training.status).toBe(422);
    expect(training.body.detail[0].type).toBe('json_invalid');
    // Error responses carry the request id too.
    expect(training.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await projectExists('broken')).toBe(false);
  });

  it('rejects a wrong content type with 415', async () => {
    const tracing = await post('tracing', 'entity=trellis', { 'content-type': 'text/plain' });
    expect(tracing).toMatchObject({ status: 415, body: { reason: expect.stringMatching(/application\/json/) } });
    const inference = await post('inference', 'entity=trellis', { 'content-type': 'text/plain' });
    expect(inference.status).toBe(415);
    expect(inference.body.error.message).toMatch(/application\/json/);
  });

  it('rejects a body over the limit with 413 and writes nothing', async () => {
    const big = JSON.stringify({ entity: 'trellis', name: 'too-big', padding: 'x'.repeat(4096) });
    const tracing = await post('tracing', big);
    expect(tracing).toMatchObject({ status: 413, body: { reason: expect.any(String) } });
    const inference = await post('inference', big);
    expect(inference.status).toBe(413);
    expect(inference.body.error.type).toBe('invalid_request_error');
    expect(await projectExists('too-big')).toBe(false);
  });

  it('answers unknown paths with a JSON 404 in the family shape', async () => {
    const tracing = await platform.fetch('/traces/no/such/path');
    expect(tracing.status).toBe(404);
    expect(await tracing.json()).toEqual({ reason: 'No route GET /traces/no/such/path' });
    const inference = await platform.fetch('/inference/v1/nope', { method: 'POST' });
    expect(inference.status).toBe(404);
    expect(((await inference.json()) as any).error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('is not supported by this server') });
    const root = await platform.fetch('/nope');
    expect(root.status).toBe(404);
    expect(((await root.json()) as any).error.message).toMatch(/No route/);
  });

  it('requires a valid key (401) before looking at the body', async () => {
    const missing = await post('tracing', '{}', { authorization: '' });
    expect(missing.status).toBe(401);
    expect(missing.body.reason).toMatch(/API key/);
    expect(missing.headers.get('www-authenticate')).toMatch(/Basic/);
    const invalid = await post('inference', JSON.stringify({ entity: 'trellis', name: 'x' }), { authorization: 'Bearer not-a-key' });
    expect(invalid.status).toBe(401);
    expect(invalid.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    const basic = await post('tracing', JSON.stringify({ entity: 'trellis', name: 'via-basic' }), {
      authorization: `Basic ${Buffer.from(`api:${platform.adminKey}`).toString('base64')}`,
    });
    expect(basic.status).toBe(200);
  });

  it('answers a valid key without the role with 403 and writes nothing', async () => {
    const response = await post('tracing', JSON.stringify({ entity: 'trellis', name: 'not-yours' }), {
      authorization: `Bearer ${outsiderKey}`,
    });
    expect(response.status).toBe(403);
    expect(response.body.reason).toMatch(/trellis/);
    const openai = await post('training', JSON.stringify({ entity: 'trellis', name: 'not-yours' }), {
      authorization: `Bearer ${outsiderKey}`,
    });
    expect(openai.status).toBe(403);
    expect(openai.body.error.type).toBe('permission_error');
    expect(await projectExists('not-yours')).toBe(false);
  });

  it('reports every schema violation with pydantic-style locations', async () => {
    const response = await post('tracing', JSON.stringify({ name: '', retries: -1, extra: true }));
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'entity'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'name'], msg: 'String should have at least 1 characters', type: 'string_too_short' },
        { loc: ['body', 'retries'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' },
      ]),
    );
    const inference = await post('inference', JSON.stringify({ entity: 'trellis', name: 'n', retries: 'many' }));
    expect(inference.status).toBe(400);
    expect(inference.body.error).toMatchObject({ param: 'retries', message: 'Input should be a valid integer: retries' });
  });

  it('readsProject: 404 for an absent project, 403 outside the entity, the same answer on the subgraph as through the gateway', async () => {
    const read = (via: 'subgraph' | 'gateway', name: string, key = platform.adminKey) =>
      platform.fetch(`/traces/_fixture/read-${via}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ entity: 'trellis', name }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));
    for (const via of ['subgraph', 'gateway'] as const) {
      expect(await read(via, 'absent')).toEqual({ status: 404, body: { reason: 'Project trellis/absent not found' } });
      expect(await read(via, 'default')).toEqual({ status: 200, body: { entity: 'trellis', name: 'default', callCount: 0 } });
      // Known to exist by now: the subgraph's resolver still refuses a caller outside the entity.
      expect((await read(via, 'default', outsiderKey)).status).toBe(403);
      expect((await read(via, 'absent', outsiderKey)).status).toBe(403);
    }
    expect(await projectExists('absent')).toBe(false);
  });

  it('serves an OpenAPI document generated from the route schemas', async () => {
    const response = await platform.fetch('/openapi.json');
    const document = (await response.json()) as any;
    expect(document.openapi).toMatch(/^3\./);
    const fixture = document.paths['/traces/_fixture/projects'].post;
    expect(fixture.requestBody.content['application/json'].schema.required).toEqual(['entity', 'name']);
    expect(document.paths['/training/v1/health']).toBeDefined();
  });
});
