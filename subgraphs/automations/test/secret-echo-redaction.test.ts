import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { Receiver } from './receiver.js';
import { createAutomation, createSecret, createVersion, createWebhook, deliveries, eventually, ok, TEST_ENV } from './helpers.js';

/**
 * A receiver that echoes the webhook's secrets back — re-encoded, in headers, or cut off by the response body limit
 * (2,048 characters) — must not let anyone who reads testWebhook results or delivery history recover them.
 * Redaction used to match only the exact value, after truncating.
 */
let platform: TestPlatform;
let receiver: Receiver;
// Characters that JSON, URL and HTML encoders escape, so every encoded form differs from the value.
const TOKEN = 'tok"en\\/ +&<x>=?%-Ab12Cd34Ef56';
const SIGNING = 'sïg/nïng"😀 s+cret&val-98765';
const RESPONSE_BODY_LIMIT = 2048;

const json = (value: string) => JSON.stringify(value).slice(1, -1);
const asciiJson = (value: string) => json(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const phpJson = (value: string) => asciiJson(value).replaceAll('/', '\\/').replace(/\\u([0-9a-f]{4})/g, (_m, hex: string) => `\\u${hex.toUpperCase()}`);
const base64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');
const html = (value: string) => value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** The secret as receivers echo it back, labelled. */
function encodings(secret: string): Record<string, string> {
  return {
    raw: secret,
    json: json(secret),
    asciiJson: asciiJson(secret),
    phpJson: phpJson(secret),
    jsonTwice: json(json(secret)),
    uriComponent: encodeURIComponent(secret),
    uriLowerHex: encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    form: new URLSearchParams({ v: secret }).toString().slice(2),
    uri: encodeURI(secret),
    html: html(secret),
    base64: base64(secret),
    base64url: Buffer.from(secret, 'utf8').toString('base64url'),
    basicAuth: `Basic ${base64(`api:${secret}`)}`,
    base64OfJson: base64(JSON.stringify({ token: secret, n: 1 })),
  };
}

/** Whether `text` still gives the secret away: in one of the encodings, or base64-decoded from anywhere in it. */
function leaks(text: string, secret: string): string | undefined {
  for (const [name, form] of Object.entries(encodings(secret))) {
    if (name !== 'basicAuth' && name !== 'base64OfJson' && text.includes(form)) return name;
  }
  for (const run of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
    for (let offset = 0; offset < 4; offset++) {
      const decoded = Buffer.from(run.slice(offset).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
      if (decoded.includes(secret) || decoded.includes(json(secret))) return `base64 run ${run}`;
    }
  }
  return undefined;
}

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
  receiver = await new Receiver().start();
  await createSecret(platform, 'trellis', 'ECHO_TOKEN', TOKEN);
  await createSecret(platform, 'trellis', 'ECHO_SIGNING', SIGNING);
});
afterAll(async () => {
  await platform?.close();
  await receiver?.close();
});

describe('secrets echoed by a receiver', () => {
  it('are redacted in every encoding, in the body and in headers (testWebhook)', async () => {
    receiver.responder = (request) => {
      const secret = request.path === '/forms-token' ? TOKEN : SIGNING;
      const lines = Object.entries(encodings(secret)).map(([name, form]) => `${name}: ${form}`);
      return {
        status: 200,
        // Header values are ASCII: the JSON-escaped token, the URL-encoded signing secret.
        headers: {
          'x-echo-auth': `Bearer ${secret === TOKEN ? json(TOKEN) : encodeURIComponent(SIGNING)}`,
          'x-echo-basic': encodings(secret).basicAuth,
        },
        body: lines.join('\n'),
      };
    };
    for (const [path, secret] of [['/forms-token', TOKEN], ['/forms-signing', SIGNING]] as const) {
      const webhookId = await createWebhook(platform, { name: `forms${path.replace('/', '-')}`, endpointUrl: receiver.url(path), accessTokenSecret: 'ECHO_TOKEN', signingSecret: 'ECHO_SIGNING' });
      const { testWebhook } = await ok(platform, `mutation($id: ID!) { testWebhook(id: $id) { status headers body } }`, { id: webhookId });
      expect(testWebhook.status).toBe(200);
      const shown = `${testWebhook.body}\n${JSON.stringify(testWebhook.headers)}`;
      expect(leaks(shown, secret), shown).toBeUndefined();
      // Every line still says what it was, with the secret (or the part of the base64 made of it) redacted.
      const lines = (testWebhook.body as string).split('\n');
      expect(lines.map((line) => line.slice(0, line.indexOf(':')))).toEqual(Object.keys(encodings(secret)));
      for (const line of lines) expect(line, line).toContain('[redacted]');
      expect(testWebhook.headers['x-echo-auth']).toBe('Bearer [redacted]');
    }
  });

  it('are redacted before a long response is cut, so the cut cannot leave the start of one (delivery history)', async () => {
    // The receiver echoes the request body; the payload is padded so that the 2,048th character of the echo falls
    // inside the (JSON-escaped) token, then inside the signing secret.
    receiver.responder = (request) => ({ status: 200, body: request.body });
    const webhookId = await createWebhook(platform, { name: 'echo-body', endpointUrl: receiver.url('/echo-body'), accessTokenSecret: 'ECHO_TOKEN', signingSecret: 'ECHO_SIGNING' });
    const prefix = '{"p":"';
    const cases = [
      { name: 'cut-token', variable: '${ACCESS_TOKEN}', escaped: json(TOKEN) },
      { name: 'cut-signing', variable: '$ECHO_SIGNING', escaped: json(SIGNING) },
    ];
    const ids = new Map<string, string>();
    for (const { name, variable } of cases) {
      const padding = 'x'.repeat(RESPONSE_BODY_LIMIT - prefix.length - '","t":"'.length - 5);
      ids.set(name, await createAutomation(platform, {
        name,
        event: { type: 'CREATE_ARTIFACT' },
        webhookId,
        payload: `${prefix}${padding}","t":"${variable}","after":"${'y'.repeat(50)}"}`,
      }));
    }
    await createVersion(platform, { collection: 'echoed' });
    for (const { name, escaped } of cases) {
      const id = ids.get(name)!;
      const [delivery] = await eventually(async () => {
        const list = await deliveries(platform, id);
        return list[0]?.status === 'SUCCEEDED' ? list : undefined;
      });
      const stored: string = delivery.attempts[0].responseBody;
      // What the receiver sent had the secret's first 5 escaped characters just before the cut.
      const sent = receiver.requests.filter((request) => request.path === '/echo-body').map((request) => request.body).find((body) => body.includes(escaped));
      expect(sent!.slice(RESPONSE_BODY_LIMIT - 5, RESPONSE_BODY_LIMIT)).toBe(escaped.slice(0, 5));
      expect(stored.endsWith('x","t":"[redacted]…'), stored.slice(-40)).toBe(true);
    }

    // What is stored: nothing of either secret, not even the 5 characters before the cut.
    const dump = await sql<{ t: string }>`
      select string_agg(coalesce(response_body, '') || coalesce(error, ''), '\n') as t from automations.delivery_attempts`.execute(platform.db.root);
    for (const { escaped } of cases) expect(dump.rows[0]!.t).not.toContain(escaped.slice(0, 5));
    for (const secret of [TOKEN, SIGNING]) expect(leaks(dump.rows[0]!.t, secret)).toBeUndefined();
  });
});
