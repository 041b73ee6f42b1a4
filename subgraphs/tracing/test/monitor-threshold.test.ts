import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { createAutomation, createWebhook, TEST_ENV } from '../../automations/test/helpers.js';
import { Receiver } from '../../automations/test/receiver.js';
import { startOf, traces } from './helpers.js';

/**
 * A monitor's threshold is an automation event: when the mean score over its window (with enough samples) falls
 * below it, tracing publishes MONITOR_SCORE_DROP once, and an automation watching the project fires its webhook — a
 * real HTTP receiver on loopback — with the monitor and the mean in its payload. Not again while the mean stays low;
 * again after it recovered and dropped anew.
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

const project = 'monitor-drops';
const projectId = `trellis/${project}`;
let nextId = 0;

/** Ends calls whose output is `ok` (score 1) or not (score 0), through /call/upsert_batch. */
async function ingest(outputs: string[]): Promise<void> {
  const batch = outputs.flatMap((output) => {
    const id = `drop-${++nextId}`;
    return [
      { mode: 'start', req: startOf(projectId, { id }) },
      { mode: 'end', req: { end: { project_id: projectId, id, ended_at: new Date().toISOString(), output, summary: {} } } },
    ];
  });
  expect((await traces(platform, '/call/upsert_batch', { batch })).status).toBe(200);
}

async function scored(monitorId: string, count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await platform.graphql(`query { project(entity: "trellis", name: "${project}") { monitors { id stats { scored } } } }`);
    const stats = body.data.project.monitors.find((monitor: { id: string }) => monitor.id === monitorId).stats;
    if (stats.scored >= count) return;
    if (Date.now() > deadline) throw new Error(`scored ${stats.scored} of ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('fires a webhook once when a monitor mean score drops below its threshold, and again only after it recovered', async () => {
  await platform.graphql(`mutation { createProject(entity: "trellis", name: "${project}") { fullName } }`);
  const webhookId = await createWebhook(platform, { name: 'quality', endpointUrl: receiver.url('/drop') });
  await createAutomation(platform, {
    scopeName: project,
    name: 'on-quality-drop',
    event: { type: 'MONITOR_SCORE_DROP', metricName: 'ok-rate' },
    webhookId,
    payload: JSON.stringify({ event_type: '${event_type}', project_name: '${project_name}', monitor: '${metric_name}', mean: '${metric_value}' }),
  });
  const { body } = await platform.graphql(
    `mutation($input: MonitorInput!) { createMonitor(entity: "trellis", project: "${project}", input: $input) { id threshold { below windowMinutes minSamples } } }`,
    { input: { name: 'ok-rate', samplingRate: 1, scorer: { kind: 'REGEX', pattern: '^ok$' }, threshold: { below: 0.5, windowMinutes: 10, minSamples: 4 } } },
  );
  expect(body.errors).toBeUndefined();
  const monitor = body.data.createMonitor;
  expect(monitor.threshold).toEqual({ below: 0.5, windowMinutes: 10, minSamples: 4 });

  // 3 samples, mean 0: below, but fewer than 4 samples — no event.
  await ingest(['bad', 'bad', 'bad']);
  await scored(monitor.id, 0);
  await ingest(['ok']);
  await scored(monitor.id, 4);
  // 4 samples, mean 0.25 < 0.5: one drop.
  const [drop] = await receiver.waitFor(1, (request) => request.path === '/drop');
  expect(JSON.parse(drop!.body)).toEqual({ event_type: 'MONITOR_SCORE_DROP', project_name: project, monitor: 'ok-rate', mean: '0.25' });

  // Still low: no second webhook.
  await ingest(['bad', 'bad']);
  await scored(monitor.id, 6);
  // Back up (11 ok of 16: mean 0.69 ≥ 0.5) re-arms it; down again (11 of 26 ≈ 0.42) fires once more.
  await ingest(Array.from({ length: 10 }, () => 'ok'));
  await scored(monitor.id, 16);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(receiver.requests.filter((request) => request.path === '/drop')).toHaveLength(1);
  await ingest(Array.from({ length: 10 }, () => 'bad'));
  await scored(monitor.id, 26);
  const drops = await receiver.waitFor(2, (request) => request.path === '/drop');
  expect(JSON.parse(drops[1]!.body).mean).toBe(String(11 / 26));
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(receiver.requests.filter((request) => request.path === '/drop')).toHaveLength(2);
}, 60_000);
