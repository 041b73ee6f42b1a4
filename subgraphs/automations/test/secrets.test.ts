import { mkdtemp, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../platform/config.js';
import { REDACTED_PATHS } from '../../../platform/logger.js';
import { startPlatform, type RunningPlatform } from '../../../server/platform.js';
import { createTestDatabase } from '../../../test/support/database.js';
import { ADMIN_KEY } from '../../../test/support/platform.js';
import { Receiver } from './receiver.js';
import { TEST_ENV } from './helpers.js';

const TOKEN = 'tok-SECRET-VALUE-111111';
const SIGNING = 'sig-SECRET-VALUE-222222';
const ROTATED = 'tok-SECRET-VALUE-333333';

let platform: RunningPlatform;
let receiver: Receiver;
let dataDir: string;
const logLines: string[] = [];

async function gql(query: string, variables?: Record<string, unknown>) {
  const response = await fetch(`${platform.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  const body = JSON.parse(text);
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return { data: body.data, text };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-secrets-'));
  const { TRELLIS_SECRET_KEY: _unused, ...env } = TEST_ENV;
  // No TRELLIS_SECRET_KEY: the master key file is generated in the data directory.
  const config = loadConfig({
    ...env,
    DATABASE_URL: await createTestDatabase(),
    PORT: '0',
    TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY,
    TRELLIS_DATA_DIR: dataDir,
  });
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(String(chunk));
      callback();
    },
  });
  const logger = pino({ level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
  platform = await startPlatform({ config, logger });
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await platform?.close();
  await receiver?.close();
});

describe('secrets', () => {
  it('never appear in API responses, delivery records, the database or logs — but are sent to the receiver', async () => {
    await gql(`mutation { a: createSecret(team: "trellis", name: "TOKEN", value: "${TOKEN}") { name } b: createSecret(team: "trellis", name: "SIGNING", value: "${SIGNING}") { name } }`);
    // The receiver echoes what it got (credentials included) and fails once, so error paths are recorded too.
    receiver.responder = (request, index) => ({
      status: index === 0 ? 500 : 200,
      body: `got ${request.headers.authorization} ${request.body}`,
    });
    const { data } = await gql(`mutation { createWebhook(input: {team: "trellis", name: "h", endpointUrl: "${receiver.url('/s')}", accessTokenSecret: "TOKEN", signingSecret: "SIGNING"}) { id accessTokenSecret signingSecret } }`);
    expect(data.createWebhook).toMatchObject({ accessTokenSecret: 'TOKEN', signingSecret: 'SIGNING' });
    const automation = await gql(`mutation($input: CreateAutomationInput!) { createAutomation(input: $input) { id } }`, {
      input: {
        entity: 'trellis',
        scopeKind: 'PROJECT',
        scopeName: 'default',
        name: 'leaky',
        event: { type: 'CREATE_ARTIFACT' },
        webhookId: data.createWebhook.id,
        payload: '{"token": "${ACCESS_TOKEN}", "sig": "$SIGNING", "v": "${artifact_version_string}"}',
      },
    });
    await gql(`mutation { createArtifactVersion(input: {entity: "trellis", project: "default", collection: "c"}) { id } }`);
    const [, second] = await receiver.waitFor(2);
    expect(JSON.parse(second!.body)).toEqual({ token: TOKEN, sig: SIGNING, v: 'trellis/default/c:v0' });
    expect(second!.headers.authorization).toBe(`Bearer ${TOKEN}`);

    const test = await gql(`mutation($id: ID!) { testWebhook(id: $id, payload: "{}") { body } }`, { id: data.createWebhook.id });
    expect(test.data.testWebhook.body).toBe('got Bearer [redacted] {}');

    let history: { data: any; text: string };
    for (;;) {
      history = await gql(`query($id: ID!) { automation(id: $id) { deliveries { nodes { status payload attempts { responseStatus responseBody error } } } } }`, {
        id: automation.data.createAutomation.id,
      });
      if (history.data.automation.deliveries.nodes[0]?.status === 'SUCCEEDED') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [delivery] = history.data.automation.deliveries.nodes;
    expect(JSON.parse(delivery.payload)).toEqual({ token: '[redacted]', sig: '[redacted]', v: 'trellis/default/c:v0' });
    expect(delivery.attempts.map((a: any) => a.responseStatus)).toEqual([500, 200]);
    expect(delivery.attempts[0].responseBody).toContain('Bearer [redacted]');
    const secretsList = await gql(`{ secrets(team: "trellis") { name } }`);
    expect(secretsList.data.secrets).toEqual([{ name: 'SIGNING' }, { name: 'TOKEN' }]);

    const dump = await sql<{ t: string }>`
      select string_agg(row_to_json(x)::text, '\n') as t from (
        select 's' as k, to_jsonb(s) as r from automations.secrets s
        union all select 'd', to_jsonb(d) from automations.deliveries d
        union all select 'a', to_jsonb(a) from automations.delivery_attempts a
        union all select 'w', to_jsonb(w) from automations.webhooks w
        union all select 'e', to_jsonb(e) from platform_events.events e) x`.execute(platform.db.root);
    const everything = [dump.rows[0]!.t, history.text, test.text, secretsList.text, logLines.join('')].join('\n');
    expect(logLines.length).toBeGreaterThan(0);
    for (const value of [TOKEN, SIGNING]) expect(everything).not.toContain(value);
  });

  it('rotation takes effect on the next delivery; deleting a secret in use is refused', async () => {
    await gql(`mutation { rotateSecret(team: "trellis", name: "TOKEN", value: "${ROTATED}") { name updatedAt } }`);
    receiver.responder = () => ({ status: 200 });
    const before = receiver.requests.length;
    await gql(`mutation { createArtifactVersion(input: {entity: "trellis", project: "default", collection: "c"}) { id } }`);
    const requests = await receiver.waitFor(before + 1);
    expect(requests.at(-1)!.headers.authorization).toBe(`Bearer ${ROTATED}`);
    const response = await fetch(`${platform.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ query: `mutation { deleteSecret(team: "trellis", name: "TOKEN") }` }),
    });
    const body = (await response.json()) as any;
    expect(body.errors[0].extensions.code).toBe('CONFLICT');
    expect(logLines.join('')).not.toContain(ROTATED);
  });

  it('generates the master key file with owner-only permissions when TRELLIS_SECRET_KEY is unset', async () => {
    const info = await stat(path.join(dataDir, 'secret-key'));
    expect(info.mode & 0o777).toBe(0o600);
  });
});
