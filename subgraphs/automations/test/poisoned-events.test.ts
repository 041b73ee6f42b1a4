import { afterAll, beforeAll, expect, it } from 'vitest';
import { publishEvent } from '../../../platform/events/index.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { Receiver } from './receiver.js';
import { createAutomation, createVersion, createWebhook, TEST_ENV } from './helpers.js';

/**
 * The automation engine handles events in batches, one transaction each. An event whose bookkeeping the database
 * can never store (here a RUN_METRIC whose step is beyond the engine's integer column) used to fail its batch on
 * every retry, so no automation fired again until someone removed the event. It is now dead-lettered alone.
 */
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

it('an event the engine cannot store is dead-lettered and later events still trigger their automations', async () => {
  const webhookId = await createWebhook(platform, { name: 'after-poison', endpointUrl: receiver.url('/after-poison') });
  await createAutomation(platform, { name: 'after-poison', event: { type: 'CREATE_ARTIFACT' }, webhookId, payload: '{"version":"${artifact_version_string}"}' });

  await publishEvent(platform.db.root, {
    type: 'RUN_METRIC',
    entity: 'trellis',
    project: 'default',
    author: 'admin',
    payload: { run: { id: '00000000-0000-4000-8000-000000000001', name: 'r' }, metric: { name: 'loss', value: 1, step: 2 ** 40 } },
  });
  await createVersion(platform, { collection: 'after-poison-data' });

  const [request] = await receiver.waitFor(1, (r) => r.path === '/after-poison');
  expect(JSON.parse(request!.body)).toEqual({ version: 'trellis/default/after-poison-data:v0' });
  const metrics = await (await platform.fetch('/metrics')).text();
  expect(metrics).toMatch(/trellis_dead_letter_records_total\{[^}]*writer="automation-engine"[^}]*\} [1-9]/);
});
