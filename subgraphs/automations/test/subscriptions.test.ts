import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { createAutomation, createVersion, createWebhook, ok, TEST_ENV } from './helpers.js';
import { Receiver } from './receiver.js';

let platform: TestPlatform;
let receiver: Receiver;
const clients: Client[] = [];

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
  receiver = await new Receiver().start();
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await platform?.close();
  await receiver?.close();
});

function connect(key: string): Client {
  const client = createClient({
    url: `${platform.url.replace('http', 'ws')}/graphql/ws`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
  clients.push(client);
  return client;
}

/** Collects results of one subscription until `count` arrived. */
function collect(client: Client, query: string, variables: Record<string, unknown>, count: number): { done: Promise<any[]>; cancel: () => void } {
  const results: any[] = [];
  let cancel = () => undefined as void;
  const done = new Promise<any[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`got ${results.length} of ${count}: ${JSON.stringify(results)}`)), 10_000);
    cancel = client.subscribe(
      { query, variables },
      {
        next: (value) => {
          if (value.errors) return reject(new Error(JSON.stringify(value.errors)));
          results.push(value.data);
          if (results.length === count) {
            clearTimeout(timer);
            resolve(results);
          }
        },
        error: (error) => reject(error instanceof Error ? error : new Error(JSON.stringify(error))),
        complete: () => undefined,
      },
    );
  });
  return { done, cancel };
}

describe('subscriptions over graphql-ws (/graphql/ws)', () => {
  it('replays platform events after a cursor, then streams new ones; other teams\' events are not visible', async () => {
    const outsider = await platform.createUser('outsider', { otherteam: 'ADMIN' });
    await createVersion(platform, { collection: 'ws', tags: ['first'] });
    const client = connect(platform.adminKey);
    const replay = collect(client, `subscription { platformEvents(after: "0.0") { cursor type entity payload } }`, {}, 2);
    const replayed = await replay.done;
    replay.cancel();
    expect(replayed.map((r) => r.platformEvents.type)).toEqual(['CREATE_ARTIFACT', 'ADD_ARTIFACT_TAG']);

    // `types` selects event types: only the tags, the creations passed over.
    const tagsOnly = collect(client, `subscription { platformEvents(after: "0.0", types: ["ADD_ARTIFACT_TAG"]) { type payload } }`, {}, 1);
    const tags = await tagsOnly.done;
    tagsOnly.cancel();
    expect(tags.map((r) => [r.platformEvents.type, r.platformEvents.payload.tag])).toEqual([['ADD_ARTIFACT_TAG', 'first']]);

    // Resume after the first event: the second is replayed, then a new one arrives live.
    const resumed = collect(client, `subscription($after: String) { platformEvents(after: $after) { type payload } }`, { after: replayed[0].platformEvents.cursor }, 3);
    const outsiderClient = connect(outsider.key);
    const outsiderView = collect(outsiderClient, `subscription { platformEvents { type entity } }`, {}, 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await createVersion(platform, { collection: 'ws', tags: ['second'] });
    const got = await resumed.done;
    expect(got.map((r) => [r.platformEvents.type, r.platformEvents.payload.tag ?? null])).toEqual([
      ['ADD_ARTIFACT_TAG', 'first'],
      ['CREATE_ARTIFACT', null],
      ['ADD_ARTIFACT_TAG', 'second'],
    ]);
    // The outsider sees their own team's events only.
    await ok(platform, `mutation { createRun(input: {entity: "otherteam", project: "p", name: "theirs"}) { id } }`, undefined, outsider.key);
    expect((await outsiderView.done)[0].platformEvents).toEqual({ type: 'RUN_STATE', entity: 'otherteam' });
  });

  it('streams delivery updates of a team to its dashboard', async () => {
    const client = connect(platform.adminKey);
    const updates = collect(client, `subscription { deliveryUpdates(team: "trellis") { id status attemptCount eventType } }`, {}, 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const webhookId = await createWebhook(platform, { name: 'dash', endpointUrl: receiver.url('/dash') });
    await createAutomation(platform, { name: 'dash', event: { type: 'CREATE_ARTIFACT' }, webhookId, payload: '{}' });
    await createVersion(platform, { collection: 'dash' });
    const [update] = await updates.done;
    expect(update.deliveryUpdates).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, eventType: 'CREATE_ARTIFACT' });
    const [request] = await receiver.waitFor(1);
    expect(request!.headers['x-service-delivery']).toBe(update.deliveryUpdates.id);
  });

  it('refuses a subscription to an empty list of types (it could never yield an event)', async () => {
    const client = connect(platform.adminKey);
    const attempt = collect(client, `subscription { platformEvents(types: []) { type } }`, {}, 1);
    await expect(attempt.done).rejects.toThrow('types names no event type: leave it out for every type');
  });

  it('refuses connections without a valid API key', async () => {
    const client = connect('not-a-key-at-all-000000');
    const attempt = collect(client, `subscription { platformEvents { type } }`, {}, 1);
    await expect(attempt.done).rejects.toBeDefined();
  });
});
