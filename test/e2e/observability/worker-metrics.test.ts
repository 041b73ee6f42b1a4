import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvents } from '../../../platform/events/index.js';
import { TRAINING_CHAT_COMPLETION_EVENT } from '../../../platform/events/contracts.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';
import { Receiver } from '../../../subgraphs/automations/test/receiver.js';
import { createAutomation, createVersion, createWebhook, deliveries, eventually, TEST_ENV } from '../../../subgraphs/automations/test/helpers.js';
import { parsePrometheusText, samplesOf, type Sample } from './prometheus-text.js';

/**
 * The background workers count what they do into the `/metrics` of the service they run in (here the one-process
 * platform): webhook delivery attempts by outcome, the automation engine's events and lag, a platform event
 * consumer's events and lag, and a record it dead-lettered. Read through HTTP, as Prometheus reads them.
 */
let platform: TestPlatform;
let receiver: Receiver;

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
  receiver = await new Receiver().start();
  // /flaky fails its first request (retried), then accepts; /refusing answers 400 (given up at once).
  receiver.responder = (request) => {
    if (request.path === '/refusing') return { status: 400, body: 'no' };
    if (request.path === '/flaky' && receiver.requests.filter((one) => one.path === '/flaky').length === 1) return { status: 503, body: 'busy' };
    return { status: 200, body: 'ok' };
  };
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await receiver?.close();
});

async function scrape(): Promise<Sample[]> {
  const response = await platform.fetch('/metrics');
  expect(response.status).toBe(200);
  return samplesOf(parsePrometheusText(await response.text()));
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const matching = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([label, wanted]) => sample.labels[label] === wanted));
  expect(matching.length, `${name} ${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return matching[0]?.value ?? 0;
}

describe("the background workers' metrics", () => {
  it('count webhook delivery attempts by outcome and the automation engine’s events, with its lag', async () => {
    const before = await scrape();
    const flaky = await createWebhook(platform, { name: 'metrics-flaky', endpointUrl: receiver.url('/flaky') });
    const refusing = await createWebhook(platform, { name: 'metrics-refusing', endpointUrl: receiver.url('/refusing') });
    const retried = await createAutomation(platform, { name: 'metrics-retried', event: { type: 'CREATE_ARTIFACT' }, webhookId: flaky, payload: '{}' });
    const refused = await createAutomation(platform, { name: 'metrics-refused', event: { type: 'CREATE_ARTIFACT' }, webhookId: refusing, payload: '{}' });
    await createVersion(platform, { collection: 'metrics-data' });
    await eventually(async () => ((await deliveries(platform, retried))[0]?.status === 'SUCCEEDED' ? true : undefined));
    await eventually(async () => ((await deliveries(platform, refused))[0]?.status === 'FAILED' ? true : undefined));

    // Outcomes are counted as the attempts end; their records are written in batches just after.
    const after = await eventually(async () => {
      const samples = await scrape();
      return value(samples, 'trellis_webhook_delivery_attempts_total', { outcome: 'failed' }) > value(before, 'trellis_webhook_delivery_attempts_total', { outcome: 'failed' }) ? samples : undefined;
    });
    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    expect(delta('trellis_webhook_delivery_attempts_total', { outcome: 'retrying' })).toBe(1);
    expect(delta('trellis_webhook_delivery_attempts_total', { outcome: 'succeeded' })).toBe(1);
    expect(delta('trellis_webhook_delivery_attempts_total', { outcome: 'failed' })).toBe(1);
    expect(delta('trellis_automation_engine_events_total')).toBeGreaterThanOrEqual(1);
    const lag = value(after, 'trellis_automation_engine_lag_seconds');
    expect(lag).toBeGreaterThan(0);
    expect(lag).toBeLessThan(30);
  });

  it("count a platform event consumer's events and lag, and the record it dead-lettered", async () => {
    const consumer = { consumer: 'inference-training-usage' };
    const before = await scrape();
    // A training completion whose usage record the database can never store (no model, a date that is none).
    await publishEvents(platform.db.root, [
      { type: TRAINING_CHAT_COMPLETION_EVENT, entity: 'trellis', project: 'default', author: 'admin', payload: { created_at: 'not a date' } },
    ]);
    const after = await eventually(async () => {
      const samples = await scrape();
      return value(samples, 'trellis_event_consumer_events_total', consumer) > value(before, 'trellis_event_consumer_events_total', consumer) ? samples : undefined;
    });
    expect(value(after, 'trellis_event_consumer_events_total', consumer) - value(before, 'trellis_event_consumer_events_total', consumer)).toBe(1);
    const lag = value(after, 'trellis_event_consumer_lag_seconds', consumer);
    expect(lag).toBeGreaterThan(0);
    expect(lag).toBeLessThan(30);
    expect(value(after, 'trellis_dead_letter_records_total', { writer: 'inference-training-usage' }) - value(before, 'trellis_dead_letter_records_total', { writer: 'inference-training-usage' })).toBe(1);
  });
});
