import { sql } from 'kysely';
import { parseCursor, publishEvents } from '../../../platform/events/index.js';
import type { TestPlatform } from '../../../test/support/platform.js';

/** GraphQL calls the automation tests repeat; each throws on GraphQL errors so a test fails where it broke. */
export async function ok<T = any>(platform: TestPlatform, query: string, variables?: Record<string, unknown>, key?: string): Promise<T> {
  const { body } = await platform.graphql<T>(query, variables, key);
  if (body.errors?.length) throw new Error(`GraphQL error: ${JSON.stringify(body.errors)}`);
  return body.data as T;
}

export async function createSecret(platform: TestPlatform, team: string, name: string, value: string): Promise<void> {
  await ok(platform, `mutation($t: String!, $n: String!, $v: String!) { createSecret(team: $t, name: $n, value: $v) { name } }`, { t: team, n: name, v: value });
}

export async function createWebhook(
  platform: TestPlatform,
  input: { team?: string; name: string; endpointUrl: string; accessTokenSecret?: string; signingSecret?: string },
): Promise<string> {
  const data = await ok(platform, `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { id } }`, {
    input: { team: 'trellis', ...input },
  });
  return data.createWebhook.id;
}

export async function createAutomation(platform: TestPlatform, input: Record<string, unknown>, key?: string): Promise<string> {
  const data = await ok(
    platform,
    `mutation($input: CreateAutomationInput!) { createAutomation(input: $input) { id state } }`,
    { input: { entity: 'trellis', scopeKind: 'PROJECT', scopeName: 'default', ...input } },
    key,
  );
  return data.createAutomation.id;
}

export async function createVersion(platform: TestPlatform, input: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const data = await ok(platform, `mutation($input: CreateArtifactVersionInput!) { createArtifactVersion(input: $input) { id name } }`, {
    input: { entity: 'trellis', project: 'default', ...input },
  });
  return data.createArtifactVersion;
}

export async function deliveries(platform: TestPlatform, automationId: string): Promise<any[]> {
  const data = await ok(
    platform,
    `query($id: ID!) { automation(id: $id) { deliveries { nodes { id status attemptCount lastStatus lastError payload attempts { attempt responseStatus responseBody error } } } } }`,
    { id: automationId },
  );
  return data.automation.deliveries.nodes;
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const TEST_ENV = {
  TRELLIS_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
  TRELLIS_SECRET_KEY: '6f'.repeat(32),
  TRELLIS_WEBHOOK_RETRY_BASE_MS: '30',
  TRELLIS_WEBHOOK_TIMEOUT_MS: '700',
  TRELLIS_WEBHOOK_MAX_ATTEMPTS: '4',
};

/** Publishes `count` events no automation matches (RUN_STATE of a project without automations); resolves with the last id. */
export async function publishUnwatchedEvents(platform: TestPlatform, count: number): Promise<number> {
  const events = Array.from({ length: count }, (_, n) => ({
    type: 'RUN_STATE',
    entity: 'trellis',
    project: 'unwatched',
    author: 'admin',
    payload: { run: { id: '00000000-0000-4000-8000-000000000002', name: 'r' }, state: 'RUNNING', n },
  }));
  return (await publishEvents(platform.db.root, events)).at(-1)!;
}

/** Resolves once the automation engine's stored cursor has passed event `id`; rejects after `timeoutMs`. */
export async function engineHandled(platform: TestPlatform, id: number, timeoutMs = 30_000): Promise<void> {
  for (let waited = 0; waited < timeoutMs; waited += 20) {
    const { rows } = await sql<{ cursor: string }>`select cursor from automations.engine_cursors where name = 'automation-engine'`.execute(platform.db.root);
    const position = rows[0] && parseCursor(rows[0].cursor);
    if (position && position.id >= BigInt(id)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the automation engine did not handle event ${id} within ${timeoutMs} ms`);
}
