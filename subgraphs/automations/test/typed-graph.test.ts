import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../platform/graphql/connection.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { Receiver } from './receiver.js';
import { createAutomation, createVersion, createWebhook, eventually, ok, TEST_ENV } from './helpers.js';

/**
 * The automations graph as a dashboard meets it: automations and deliveries as connections (newest first, bounded
 * pages, opaque cursors), the team's delivery log with each attempt, typed event filters, and recent activity.
 */
let platform: TestPlatform;
let receiver: Receiver;
let okAutomation: string;
let failingAutomation: string;

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
  receiver = await new Receiver().start();
  receiver.responder = (request) => (request.path === '/refuse' ? { status: 400, body: 'no' } : { status: 200, body: 'ok' });
  const good = await createWebhook(platform, { name: 'log-ok', endpointUrl: receiver.url('/ok') });
  const bad = await createWebhook(platform, { name: 'log-refuse', endpointUrl: receiver.url('/refuse') });
  okAutomation = await createAutomation(platform, { name: 'log-a', event: { type: 'CREATE_ARTIFACT' }, webhookId: good, payload: '{"v":"${artifact_version_string}"}' });
  failingAutomation = await createAutomation(platform, {
    name: 'log-b',
    event: { type: 'RUN_METRIC', metricName: 'acc', comparison: 'GT', threshold: 0.5 },
    runFilter: { runNameRegex: '^train-' },
    webhookId: bad,
    payload: '{}',
  });
  await ok(platform, `mutation($id: ID!) { setAutomationEnabled(id: $id, enabled: false) { id } }`, { id: failingAutomation });
  // Three deliveries of log-a (log-b is paused, and watches metrics).
  for (let i = 0; i < 3; i++) await createVersion(platform, { collection: `log-${i}` });
  // Received is not yet recorded: wait until the worker has recorded every attempt's outcome.
  await eventually(async () => {
    const data: any = await ok(platform, `{ deliveries(team: "trellis", status: SUCCEEDED) { nodes { id } } }`);
    return data.deliveries.nodes.length >= 3 ? true : undefined;
  });
});
afterAll(async () => {
  await platform?.close();
  await receiver?.close();
});

const LOG = `query($team: String!, $first: Int, $after: String, $automationId: ID, $status: DeliveryStatus) {
  deliveries(team: $team, first: $first, after: $after, automationId: $automationId, status: $status) {
    nodes { id automationId status createdAt attempts { attempt responseStatus durationMs error startedAt } }
    pageInfo { hasNextPage hasPreviousPage endCursor }
  }
}`;

describe('delivery log', () => {
  it("pages a team's deliveries newest first, with their attempts", async () => {
    const all: any[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const data: any = await ok(platform, LOG, { team: 'trellis', first: 2, after });
      expect(data.deliveries.pageInfo.hasPreviousPage).toBe(after !== null);
      all.push(...data.deliveries.nodes);
      if (!data.deliveries.pageInfo.hasNextPage) break;
      after = data.deliveries.pageInfo.endCursor;
    }
    expect(all).toHaveLength(3);
    expect(new Set(all.map((d) => d.id)).size).toBe(3);
    const times = all.map((d) => Date.parse(d.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const delivery of all) {
      expect(delivery).toMatchObject({ automationId: okAutomation, status: 'SUCCEEDED' });
      expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, responseStatus: 200, error: null, durationMs: expect.any(Number) })]);
    }
    const filtered: any = await ok(platform, LOG, { team: 'trellis', automationId: failingAutomation });
    expect(filtered.deliveries.nodes).toEqual([]);
    const failed: any = await ok(platform, LOG, { team: 'trellis', status: 'FAILED' });
    expect(failed.deliveries.nodes).toEqual([]);
  });

  it('is for team admins; pages are bounded and cursors must be its own', async () => {
    const member = await platform.createUser('log-member', { trellis: 'MEMBER' });
    const denied = await platform.graphql(LOG, { team: 'trellis' }, member.key);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const tooMany = await platform.graphql(LOG, { team: 'trellis', first: 501 });
    expect(tooMany.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['first'] });
    const foreign = await platform.graphql(LOG, { team: 'trellis', after: encodeCursor(7) });
    expect(foreign.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['after'] });
  });

  it("an automation's deliveries are the same connection", async () => {
    const data: any = await ok(platform, `query($id: ID!) { automation(id: $id) { deliveries(first: 1) { nodes { status } pageInfo { hasNextPage } } } }`, { id: okAutomation });
    expect(data.automation.deliveries).toEqual({ nodes: [{ status: 'SUCCEEDED' }], pageInfo: { hasNextPage: true } });
  });
});

describe('automations', () => {
  it('are a connection by name, with typed event and run filters', async () => {
    const first: any = await ok(platform, `{ automations(entity: "trellis", first: 1) { nodes { name } pageInfo { hasNextPage endCursor } } }`);
    expect(first.automations.nodes).toEqual([{ name: 'log-a' }]);
    const rest: any = await ok(
      platform,
      `query($after: String) { automations(entity: "trellis", after: $after) { nodes { name state eventType
        event { type metricName window aggregation comparison threshold runStates } runFilter { user runNameRegex } } pageInfo { hasNextPage } } }`,
      { after: first.automations.pageInfo.endCursor },
    );
    expect(rest.automations).toEqual({
      nodes: [
        {
          name: 'log-b',
          state: 'DISABLED',
          eventType: 'RUN_METRIC',
          // Defaults filled in: a window of 5, averaged.
          event: { type: 'RUN_METRIC', metricName: 'acc', window: 5, aggregation: 'AVG', comparison: 'GT', threshold: 0.5, runStates: null },
          runFilter: { user: null, runNameRegex: '^train-' },
        },
      ],
      pageInfo: { hasNextPage: false },
    });
  });
});

describe('recent platform events', () => {
  it("lists the team's events newest first, for its members only", async () => {
    const data: any = await ok(platform, `{ recentPlatformEvents(team: "trellis", first: 2, types: ["CREATE_ARTIFACT"]) {
      nodes { type entity project author payload } pageInfo { hasNextPage endCursor } } }`);
    expect(data.recentPlatformEvents.nodes).toHaveLength(2);
    expect(data.recentPlatformEvents.nodes[0]).toMatchObject({ type: 'CREATE_ARTIFACT', entity: 'trellis', project: 'default', author: 'admin' });
    expect(JSON.stringify(data.recentPlatformEvents.nodes[0].payload)).toContain('log-2');
    expect(JSON.stringify(data.recentPlatformEvents.nodes[1].payload)).toContain('log-1');
    const next: any = await ok(platform, `query($after: String) { recentPlatformEvents(team: "trellis", first: 2, types: ["CREATE_ARTIFACT"], after: $after) {
      nodes { payload } pageInfo { hasNextPage } } }`, { after: data.recentPlatformEvents.pageInfo.endCursor });
    expect(next.recentPlatformEvents.nodes).toHaveLength(1);
    expect(JSON.stringify(next.recentPlatformEvents.nodes[0].payload)).toContain('log-0');

    const outsider = await platform.createUser('log-outsider');
    const denied = await platform.graphql(`{ recentPlatformEvents(team: "trellis") { nodes { id } } }`, {}, outsider.key);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('refuses an empty list of types (it names none), saying to leave it out for every type', async () => {
    const { body } = await platform.graphql(`{ recentPlatformEvents(team: "trellis", types: []) { nodes { id } } }`);
    expect(body.data).toBeNull();
    expect(body.errors[0].message).toBe('types names no event type: leave it out for every type');
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});
