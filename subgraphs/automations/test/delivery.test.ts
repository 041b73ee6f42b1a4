import { createHmac, randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { Receiver, type ReceivedRequest } from './receiver.js';
import { createAutomation, createSecret, createVersion, createWebhook, deliveries, eventually, ok, TEST_ENV } from './helpers.js';

let platform: TestPlatform;
let receiver: Receiver;
const TOKEN = 'tok-0123456789-bearer';
const SIGNING = 'sig-abcdef-0123456789';

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
  receiver = await new Receiver().start();
  await createSecret(platform, 'trellis', 'HOOK_TOKEN', TOKEN);
  await createSecret(platform, 'trellis', 'SIGNING_KEY', SIGNING);
});
afterAll(async () => {
  await platform?.close();
  await receiver?.close();
});

describe('webhook delivery', () => {
  it('POSTs the rendered payload with bearer token, HMAC signature, delivery id and timestamp headers', async () => {
    const webhookId = await createWebhook(platform, { name: 'signed', endpointUrl: receiver.url('/signed'), accessTokenSecret: 'HOOK_TOKEN', signingSecret: 'SIGNING_KEY' });
    const payload = JSON.stringify({
      event_type: '${event_type}',
      project: '${project_name}',
      entity: '${entity_name}',
      author: '${event_author}',
      collection: '${artifact_collection_name}',
      version: '${artifact_version}',
      version_string: '${artifact_version_string}',
      note: 'note: ${artifact_metadata.note}',
      accuracy: '${artifact_metadata.accuracy}',
      alias: '${alias}',
      tag: '${tag}',
      token: '${ACCESS_TOKEN}',
      secret: '$SIGNING_KEY',
    });
    await createAutomation(platform, { name: 'on-create', event: { type: 'CREATE_ARTIFACT' }, webhookId, payload });
    const version = await createVersion(platform, { collection: 'signed-data', metadata: { note: 'he said "hi"}, "x": {', accuracy: 0.9 } });

    const [request] = await receiver.waitFor(1, (r) => r.path === '/signed');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers['x-service-signature']).toBe(createHmac('sha256', SIGNING).update(request!.body).digest('hex'));
    const deliveryId = request!.headers['x-service-delivery'] as string;
    const timestamp = request!.headers['x-service-timestamp'] as string;
    expect(deliveryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(30);
    expect(request!.headers['webhook-id']).toBe(deliveryId);
    expect(request!.headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', SIGNING).update(`${deliveryId}.${timestamp}.${request!.body}`).digest('base64')}`,
    );

    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({
      event_type: 'CREATE_ARTIFACT',
      project: 'default',
      entity: 'trellis',
      author: 'admin',
      collection: 'signed-data',
      version_string: 'trellis/default/signed-data:v0',
      note: 'note: he said "hi"}, "x": {',
      accuracy: '0.9',
      alias: '',
      tag: '',
      token: TOKEN,
      secret: SIGNING,
    });
    expect(body.version).toMatchObject({ id: version.id, name: 'signed-data:v0', metadata: { accuracy: 0.9 } });
    expect(Object.keys(body)).toHaveLength(13);
  });

  it('signs webhook-signature so the Standard Webhooks libraries (standardwebhooks, svix) verify it with the secret as written', async () => {
    // The Standard Webhooks format: whsec_ then base64 of random bytes; the libraries' HMAC key is those bytes.
    const standard = `whsec_${randomBytes(32).toString('base64')}`;
    await createSecret(platform, 'trellis', 'STANDARD_KEY', standard);
    const standardHook = await createWebhook(platform, { name: 'standard', endpointUrl: receiver.url('/standard'), signingSecret: 'STANDARD_KEY' });
    // A secret stored before the format (any other text) keeps its key, its text's bytes: written whsec_ + base64
    // of the text, the libraries verify it too.
    const legacyHook = await createWebhook(platform, { name: 'legacy', endpointUrl: receiver.url('/legacy'), signingSecret: 'SIGNING_KEY' });
    const automationIds: string[] = [];
    for (const [name, webhookId] of [['standard', standardHook], ['legacy', legacyHook]]) {
      automationIds.push(await createAutomation(platform, { name: `sw-${name}`, event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '^standard-webhooks$' }, webhookId, payload: '{"tag":"${tag}","v":"${artifact_version}"}' }));
    }
    // A receiver that echoes the key as the libraries see it (the base64 after whsec_) does not put it in the history.
    receiver.responder = (request) => (request.path === '/standard' ? { status: 200, body: `key ${standard.slice('whsec_'.length)}` } : { status: 200, body: 'ok' });
    await createVersion(platform, { collection: 'standard-webhooks', tags: ['standard-webhooks'], metadata: { note: 'ünïcode "quoted"' } });

    const headersOf = (request: ReceivedRequest) => Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    const [signed] = await receiver.waitFor(1, (r) => r.path === '/standard');
    expect(new StandardWebhook(standard).verify(signed!.body, headersOf(signed!))).toMatchObject({ tag: 'standard-webhooks' });
    expect(() => new SvixWebhook(standard).verify(signed!.body, headersOf(signed!))).not.toThrow();
    // A body changed in transit does not verify.
    expect(() => new StandardWebhook(standard).verify(signed!.body.replace('standard', 'Standard'), headersOf(signed!))).toThrow(/No matching signature/);
    // X-Service-Signature stays keyed with the secret's text, as before (GitHub-style receivers).
    expect(signed!.headers['x-service-signature']).toBe(createHmac('sha256', standard).update(signed!.body).digest('hex'));

    const [legacy] = await receiver.waitFor(1, (r) => r.path === '/legacy');
    const legacyAsStandard = `whsec_${Buffer.from(SIGNING, 'utf8').toString('base64')}`;
    expect(new StandardWebhook(legacyAsStandard).verify(legacy!.body, headersOf(legacy!))).toMatchObject({ tag: 'standard-webhooks' });
    expect(() => new SvixWebhook(legacyAsStandard).verify(legacy!.body, headersOf(legacy!))).not.toThrow();
    expect(legacy!.headers['x-service-signature']).toBe(createHmac('sha256', SIGNING).update(legacy!.body).digest('hex'));
    const [delivery] = await eventually(async () => {
      const rows = await deliveries(platform, automationIds[0]!);
      return rows[0]?.status === 'SUCCEEDED' ? rows : undefined;
    });
    expect(delivery.attempts[0].responseBody).toBe('key [redacted]');
    receiver.responder = () => ({ status: 200, body: 'ok' });

    // A value that claims the format but that the libraries could not decode is refused, and nothing is stored.
    const refused = await platform.graphql(`mutation { createSecret(team: "trellis", name: "BAD_STANDARD", value: "whsec_not base64!") { name } }`);
    expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', field: ['value'] });
    expect(refused.body.errors?.[0].message).toMatch(/Standard Webhooks signing secret/);
    const names = await ok(platform, `{ secrets(team: "trellis") { name } }`);
    expect(names.secrets.map((secret: any) => secret.name)).not.toContain('BAD_STANDARD');
  });

  it('retries 503 with backoff and succeeds on the third attempt, with the same delivery id every time', async () => {
    const path = '/flaky';
    receiver.responder = (request, index) => (request.path === path && receiver.requests.filter((r) => r.path === path).length <= 2 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' });
    const webhookId = await createWebhook(platform, { name: 'flaky', endpointUrl: receiver.url(path) });
    const automationId = await createAutomation(platform, { name: 'flaky', event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '^flaky$' }, webhookId, payload: '{"tag":"${tag}"}' });
    await createVersion(platform, { collection: 'flaky-data', tags: ['flaky', 'other'] });

    const requests = await receiver.waitFor(3, (r) => r.path === path);
    expect(new Set(requests.map((r) => r.headers['x-service-delivery'])).size).toBe(1);
    expect(JSON.parse(requests[2]!.body)).toEqual({ tag: 'flaky' });
    const [delivery] = await eventually(async () => {
      const rows = await deliveries(platform, automationId);
      return rows[0]?.status === 'SUCCEEDED' ? rows : undefined;
    });
    expect(delivery.attempts.map((a: any) => a.responseStatus)).toEqual([503, 503, 200]);
    expect(delivery.attemptCount).toBe(3);
    expect(receiver.requests.filter((r) => r.path === path)).toHaveLength(3);
    receiver.responder = () => ({ status: 200, body: 'ok' });
  });

  it('records an attempt whose receiver answered text PostgreSQL cannot store (NUL), with U+FFFD in its place', async () => {
    const path = '/nul-answer';
    receiver.responder = (request) => (request.path === path ? { status: 200, body: 'ok\u0000done' } : { status: 200, body: 'ok' });
    const webhookId = await createWebhook(platform, { name: 'nul-answer', endpointUrl: receiver.url(path) });
    const automationId = await createAutomation(platform, { name: 'nul-answer', event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '^nul-answer$' }, webhookId, payload: '{"tag":"${tag}"}' });
    await createVersion(platform, { collection: 'nul-answer-data', tags: ['nul-answer'] });

    const [delivery] = await eventually(async () => {
      const rows = await deliveries(platform, automationId);
      return rows[0]?.status === 'SUCCEEDED' ? rows : undefined;
    });
    expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, responseStatus: 200, responseBody: 'ok\ufffddone' })]);
    receiver.responder = () => ({ status: 200, body: 'ok' });
  });

  it('fails without retry on 4xx, disables the webhook on 410, refuses redirects, and gives up after the last attempt on timeouts', async () => {
    const cases = [
      { path: '/bad', answer: { status: 400, body: 'nope' }, attempts: 1, error: /answered 400/ },
      { path: '/gone', answer: { status: 410, body: 'gone' }, attempts: 1, error: /410 Gone; webhook disabled/ },
      { path: '/moved', answer: { status: 302, headers: { location: receiver.url('/elsewhere') } }, attempts: 1, error: /redirects are not followed/ },
      { path: '/slow', answer: { status: 200, delayMs: 1500 }, attempts: 4, error: /timed out after 700 ms/ },
    ];
    receiver.responder = (request) => cases.find((c) => c.path === request.path)?.answer ?? { status: 200 };
    const automations: Record<string, string> = {};
    for (const c of cases) {
      const webhookId = await createWebhook(platform, { name: `case${c.path.replace('/', '-')}`, endpointUrl: receiver.url(c.path) });
      automations[c.path] = await createAutomation(platform, {
        name: `case${c.path}`,
        event: { type: 'ADD_ARTIFACT_ALIAS', aliasRegex: `^case${c.path.replace('/', '-')}$` },
        webhookId,
        payload: '{"alias":"${alias}"}',
      });
    }
    await createVersion(platform, { collection: 'cases', aliases: cases.map((c) => `case${c.path.replace('/', '-')}`) });
    for (const c of cases) {
      const [delivery] = await eventually(async () => {
        const rows = await deliveries(platform, automations[c.path]!);
        return rows[0]?.status === 'FAILED' ? rows : undefined;
      });
      expect(delivery.attemptCount, c.path).toBe(c.attempts);
      expect(delivery.lastError, c.path).toMatch(c.error);
    }
    expect(receiver.requests.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
    const webhooks = await ok(platform, `{ webhooks(team: "trellis") { name disabled } }`);
    expect(webhooks.webhooks.find((w: any) => w.name === 'case-gone').disabled).toBe(true);
    expect(webhooks.webhooks.find((w: any) => w.name === 'case-bad').disabled).toBe(false);
    receiver.responder = () => ({ status: 200, body: 'ok' });
  });

  it('honours Retry-After on 429 before the next attempt', async () => {
    receiver.responder = (request) =>
      request.path === '/limited' && receiver.requests.filter((r) => r.path === '/limited').length === 1
        ? { status: 429, headers: { 'retry-after': '1' } }
        : { status: 200 };
    const webhookId = await createWebhook(platform, { name: 'limited', endpointUrl: receiver.url('/limited') });
    await createAutomation(platform, { name: 'limited', event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '^limited$' }, webhookId, payload: '{}' });
    await createVersion(platform, { collection: 'limited', tags: ['limited'] });
    const [first, second] = await receiver.waitFor(2, (r) => r.path === '/limited');
    // The backoff alone would retry after at most 30 ms here.
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(950);
    receiver.responder = () => ({ status: 200, body: 'ok' });
  });

  it('redeliver sends a finished delivery again with the same delivery id', async () => {
    const webhookId = await createWebhook(platform, { name: 'redeliver', endpointUrl: receiver.url('/again') });
    const automationId = await createAutomation(platform, { name: 'redeliver', event: { type: 'ADD_ARTIFACT_TAG', tagRegex: 'again' }, webhookId, payload: '{"n":1}' });
    await createVersion(platform, { collection: 'again', tags: ['again'] });
    const [first] = await receiver.waitFor(1, (r) => r.path === '/again');
    const [delivery] = await eventually(async () => {
      const rows = await deliveries(platform, automationId);
      return rows[0]?.status === 'SUCCEEDED' ? rows : undefined;
    });
    await ok(platform, `mutation($id: ID!) { redeliver(deliveryId: $id) { id status } }`, { id: delivery.id });
    const both = await receiver.waitFor(2, (r) => r.path === '/again');
    expect(both[1]!.headers['x-service-delivery']).toBe(first!.headers['x-service-delivery']);
    expect(both[1]!.headers['x-service-delivery']).toBe(delivery.id);
  });

  it('refuses private and metadata addresses that the allow-list does not admit, at connect time', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[::1]:9/x', 'http://10.0.0.1/x', 'http://[::ffff:192.168.0.1]/x']) {
      const webhookId = await createWebhook(platform, { name: `ssrf-${Math.random().toString(36).slice(2)}`, endpointUrl: url });
      const result = await ok(platform, `mutation($id: ID!) { testWebhook(id: $id) { ok status error } }`, { id: webhookId });
      expect(result.testWebhook, url).toMatchObject({ ok: false, status: null });
      expect(result.testWebhook.error, url).toMatch(/not allowed/);
    }
  });

  it('testWebhook sends the test payload with the real credentials and returns status, headers and a redacted body', async () => {
    receiver.responder = (request) => (request.path === '/echo' ? { status: 201, headers: { 'x-echo': 'yes' }, body: `auth was ${request.headers.authorization}` } : { status: 200 });
    const webhookId = await createWebhook(platform, { name: 'echo', endpointUrl: receiver.url('/echo'), accessTokenSecret: 'HOOK_TOKEN', signingSecret: 'SIGNING_KEY' });
    const result = await ok(platform, `mutation($id: ID!) { testWebhook(id: $id, payload: "{\\"hello\\":1}") { ok status headers body error } }`, { id: webhookId });
    const [request] = await receiver.waitFor(1, (r) => r.path === '/echo');
    expect(request!.body).toBe('{"hello":1}');
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers['x-service-signature']).toBe(createHmac('sha256', SIGNING).update('{"hello":1}').digest('hex'));
    expect(result.testWebhook).toMatchObject({ ok: true, status: 201, body: 'auth was Bearer [redacted]', error: null });
    expect(result.testWebhook.headers['x-echo']).toBe('yes');
    receiver.responder = () => ({ status: 200, body: 'ok' });
  });
});
