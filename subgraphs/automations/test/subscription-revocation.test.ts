import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { createVersion, ok, TEST_ENV } from './helpers.js';

// Regression tests for the probe's "open subscriptions outlive revocation": a graphql-ws connection kept the
// identity it opened with, so after its key was revoked, or its user removed from the team, it went on receiving
// the team's events, could replay history and run queries.
let platform: TestPlatform;
const clients: Client[] = [];
beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await platform?.close();
});

interface Watch {
  events: string[];
  closed: Promise<{ code: number; reason: string }>;
  opened: Promise<void>;
}

/** Subscribes to the team's platform events with `key`; records the events and how the socket closed. */
function watch(key: string, entity: string): Watch {
  let onClosed!: (event: { code: number; reason: string }) => void;
  let onOpened!: () => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  const opened = new Promise<void>((resolve) => (onOpened = resolve));
  const client = createClient({
    url: `${platform.url.replace('http', 'ws')}/graphql/ws`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
    on: { connected: () => onOpened(), closed: (event) => onClosed(event as { code: number; reason: string }) },
  });
  clients.push(client);
  const events: string[] = [];
  client.subscribe(
    { query: 'subscription($entity: String) { platformEvents(entity: $entity) { type payload } }', variables: { entity } },
    { next: (value) => events.push(JSON.stringify(value.data ?? value.errors)), error: () => undefined, complete: () => undefined },
  );
  return { events, closed, opened };
}

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);

describe('open graphql-ws connections follow changes of their rights', () => {
  it('are closed with 4403 when their key is revoked, and get no event after', async () => {
    const { key } = await platform.createUser('ws-revoked', { trellis: 'MEMBER' });
    const watching = watch(key, 'trellis');
    await watching.opened;
    await new Promise((resolve) => setTimeout(resolve, 200));
    await createVersion(platform, { collection: 'before-revocation' });
    await expect.poll(() => watching.events.length, { timeout: 5_000 }).toBeGreaterThan(0);
    const { viewer } = await ok(platform, '{ viewer { apiKeys { id } } }', undefined, key);
    await ok(platform, 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: viewer.apiKeys[0].id }, key);
    expect(await within(watching.closed, 5_000)).toMatchObject({ code: 4403 });
    const seen = watching.events.length;
    await createVersion(platform, { collection: 'after-revocation' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(watching.events.length).toBe(seen);
    expect(watching.events.join()).not.toContain('after-revocation');
  });

  it('are closed with 4403 when their user leaves the team', async () => {
    const { key } = await platform.createUser('ws-removed', { trellis: 'MEMBER' });
    const watching = watch(key, 'trellis');
    await watching.opened;
    await ok(platform, 'mutation { removeTeamMember(team: "trellis", username: "ws-removed") }');
    expect(await within(watching.closed, 5_000)).toMatchObject({ code: 4403 });
  });

  it('stay open when their user only gains rights', async () => {
    const { key } = await platform.createUser('ws-promoted', { trellis: 'MEMBER' });
    const watching = watch(key, 'trellis');
    await watching.opened;
    await ok(platform, 'mutation { createTeam(name: "ws-new-team") { name } }');
    await ok(platform, 'mutation { setTeamMember(team: "ws-new-team", username: "ws-promoted", role: MEMBER) { name } }');
    const closedSoon = await Promise.race([watching.closed.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 1_000))]);
    expect(closedSoon).toBe(false);
  });
});
