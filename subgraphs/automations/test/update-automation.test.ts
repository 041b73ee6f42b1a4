import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { createAutomation, createVersion, createWebhook, eventually, ok, TEST_ENV } from './helpers.js';
import { Receiver } from './receiver.js';

let platform: TestPlatform;
let receiver: Receiver;
beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await platform?.close();
  await receiver?.close();
});

const UPDATE = `mutation($id: ID!, $input: CreateAutomationInput!) { updateAutomation(id: $id, input: $input) { id name description eventType event { type tagRegex } payload createdBy } }`;

describe('updateAutomation', () => {
  it('replaces the definition with createAutomation\'s checks; id, creator and deliveries stay; new events use the new definition', async () => {
    const webhookId = await createWebhook(platform, { name: 'update-hook', endpointUrl: receiver.url() });
    const base = { entity: 'trellis', scopeKind: 'PROJECT', scopeName: 'default', webhookId };
    const id = await createAutomation(platform, { name: 'before', event: { type: 'CREATE_ARTIFACT' }, webhookId, payload: '{"v": 1}' });
    await createAutomation(platform, { name: 'taken', event: { type: 'CREATE_ARTIFACT' }, webhookId, payload: '{}', enabled: false });
    await createVersion(platform, { collection: 'update-a' });
    await receiver.waitFor(1);

    const updated = await ok(platform, UPDATE, {
      id,
      input: { ...base, name: 'after', description: 'tags only', event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '^ship$' }, payload: '{"v": 2, "tag": "${tag}"}' },
    });
    expect(updated.updateAutomation).toMatchObject({ id, name: 'after', description: 'tags only', eventType: 'ADD_ARTIFACT_TAG', event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '^ship$' }, createdBy: 'admin' });
    const history = await ok(platform, `query($id: ID!) { automation(id: $id) { deliveries { nodes { id status } } } }`, { id });
    expect(history.automation.deliveries.nodes).toHaveLength(1);

    await createVersion(platform, { collection: 'update-b', tags: ['ship'] });
    const requests = await receiver.waitFor(2);
    expect(JSON.parse(requests[1]!.body)).toEqual({ v: 2, tag: 'ship' });
    await eventually(async () => ((await ok(platform, `query($id: ID!) { automation(id: $id) { deliveries { nodes { id } } } }`, { id })).automation.deliveries.nodes.length === 2 ? true : undefined));
    expect(receiver.requests).toHaveLength(2); // CREATE_ARTIFACT no longer matches

    // The same refusals as createAutomation, at the same paths; a taken name; another team.
    const bad = await platform.graphql(UPDATE, { id, input: { ...base, name: 'after', event: { type: 'CREATE_ARTIFACT' }, payload: '{"x": "${nope}"}' } });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ loc: ['input', 'payload'] }] });
    expect(bad.body.errors[0].message).toContain('Unknown payload variable ${nope}');
    const clash = await platform.graphql(UPDATE, { id, input: { ...base, name: 'taken', event: { type: 'CREATE_ARTIFACT' }, payload: '{}' } });
    expect(clash.body.errors[0].extensions.code).toBe('CONFLICT');
    const moved = await platform.graphql(UPDATE, { id, input: { ...base, entity: 'elsewhere', name: 'after', event: { type: 'CREATE_ARTIFACT' }, payload: '{}' } });
    expect(moved.body.errors[0].extensions.code).toMatch(/BAD_USER_INPUT|FORBIDDEN/);
    const missing = await platform.graphql(UPDATE, { id, input: { ...base, scopeName: 'no-such-project', name: 'after', event: { type: 'CREATE_ARTIFACT' }, payload: '{}' } });
    expect(missing.body.errors[0].extensions).toEqual({ code: 'NOT_FOUND', status: 404, field: ['input', 'scopeName'] });
    const unchanged = await ok(platform, `query($id: ID!) { automation(id: $id) { name payload } }`, { id });
    expect(unchanged.automation).toEqual({ name: 'after', payload: '{"v": 2, "tag": "${tag}"}' });
  });

  it('refuses a member who is not a scope admin', async () => {
    const member = await platform.createUser('plain-member', { trellis: 'MEMBER' });
    const automations = await ok(platform, `{ automations(entity: "trellis") { nodes { id webhookId } } }`);
    const [first] = automations.automations.nodes;
    const refused = await platform.graphql(
      UPDATE,
      { id: first.id, input: { entity: 'trellis', scopeKind: 'PROJECT', scopeName: 'default', webhookId: first.webhookId, name: 'hijack', event: { type: 'CREATE_ARTIFACT' }, payload: '{}' } },
      member.key,
    );
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
